// File: pretrain_corpus.cc
// The built-in pretraining corpora and corpus files (see pretrain_corpus.h).
#include "cli/pretrain_corpus.h"

#include <filesystem>
#include <sstream>

#include "common/file_io.h"

namespace devplace::cli {

namespace {

std::vector<CorpusEntry> cross(const std::vector<std::pair<std::string, std::string>>& graphs, const std::vector<std::string>& clusters) {
  std::vector<CorpusEntry> out;
  for (const auto& [graph, family] : graphs) {
    for (const std::string& cluster : clusters) out.push_back({graph, cluster, family, false, ""});
  }
  return out;
}

// The tests' fixtures, from the source tree this binary was built from.
CorpusEntry fixture(const std::string& relative, const std::string& cluster, const std::string& family, bool training) {
  return {relative, cluster, family, training, std::string(DEVPLACE_SOURCE_DIR) + "/" + relative};
}

void add_fixtures(std::vector<CorpusEntry>& out, const std::vector<std::pair<std::string, std::string>>& files, const std::vector<std::string>& clusters) {
  for (const auto& [file, family] : files) {
    const bool onnx = file.size() > 5 && file.compare(file.size() - 5, 5, ".onnx") == 0;
    for (const std::string& cluster : clusters) out.push_back(fixture("tests/io/testdata/" + file, cluster, family, onnx));
  }
}

}  // namespace

std::vector<std::string> builtin_corpora() { return {"train", "held-out", "tiny"}; }

Result<std::vector<CorpusEntry>> corpus_entries(const std::string& spec) {
  if (spec == "train") {
    std::vector<CorpusEntry> out = cross({{"zoo:resnet50:batch=16", "resnet"},
                  {"zoo:resnet50:batch=32", "resnet"},
                  {"zoo:transformer:layers=2", "transformer"},
                  {"zoo:transformer:layers=4,d_model=256,heads=4,ff=1024", "transformer"},
                  {"zoo:layered:layers=16,width=4,fanin=2", "layered"},
                  {"zoo:layered:layers=32,width=2,fanin=1", "layered"},
                  {"zoo:layered:layers=8,width=8,fanin=3,hidden=2048", "layered"},
                  {"zoo:layered:layers=12,width=8,fanin=2,hidden=4096", "layered"},
                  {"zoo:recurrent", "recurrent"},
                  {"zoo:recurrent:layers=3,hidden=2048,steps=16", "recurrent"}},
                 {"k80x2", "k80x4", "v100x8", "hetero"});
    add_fixtures(out,
                 {{"onnx/resnet18.onnx", "resnet"},
                  {"onnx/mobilenet_v2.onnx", "mobilenet"},
                  {"onnx/attention.onnx", "transformer"},
                  {"pipedream/resnet18/graph.txt", "resnet"},
                  {"pipedream/resnet50/graph.txt", "resnet"},
                  {"pipedream/alexnet/graph.txt", "alexnet"},
                  {"pipedream/vgg16/graph.txt", "vgg"},
                  {"pipedream/squeezenet1_0/graph.txt", "squeezenet"}},
                 {"k80x2", "k80x4", "v100x8", "hetero"});
    return out;
  }
  if (spec == "held-out") {
    std::vector<CorpusEntry> out = cross({{"zoo:rnnlm", "rnnlm"},
                  {"zoo:rnnlm:layers=4,hidden=1024", "rnnlm"},
                  {"zoo:nmt", "nmt"},
                  {"zoo:nmt:layers=4", "nmt"},
                  {"zoo:inception_v3", "inception"}},
                 {"k80x2", "k80x4", "hetero"});
    add_fixtures(out, {{"onnx/lstm.onnx", "rnnlm"}, {"pipedream/gnmt/graph.txt", "nmt"}}, {"k80x2", "k80x4", "hetero"});
    return out;
  }
  if (spec == "tiny") {
    return std::vector<CorpusEntry>{{"zoo:layered:layers=4,width=2,hidden=256", "k80x2", "layered", false, ""},
                                    {"zoo:layered:layers=6,width=3,hidden=512", "hetero", "layered", false, ""}};
  }
  std::error_code ec;
  if (!std::filesystem::exists(spec, ec))
    return invalid_input("--corpus: '" + spec + "' is neither a built-in corpus (train, held-out, tiny) nor a file");
  DEVPLACE_ASSIGN_OR_RETURN(const std::string text, read_text_file(spec));
  std::vector<CorpusEntry> entries;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    CorpusEntry e;
    std::string option, extra;
    if (!(fields >> e.graph >> e.cluster >> e.family) || ((fields >> option) && option != "training") || (fields >> extra))
      return invalid_input(spec + ":" + std::to_string(number) + ": expected 'GRAPH CLUSTER FAMILY [training]'");
    e.training = option == "training";
    entries.push_back(e);
  }
  if (entries.empty()) return invalid_input(spec + ": no problems in the corpus (one 'GRAPH CLUSTER FAMILY [training]' per line)");
  return entries;
}

}  // namespace devplace::cli
