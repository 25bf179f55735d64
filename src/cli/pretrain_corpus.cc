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
    for (const std::string& cluster : clusters) out.push_back({graph, cluster, family});
  }
  return out;
}

}  // namespace

std::vector<std::string> builtin_corpora() { return {"train", "held-out", "tiny"}; }

Result<std::vector<CorpusEntry>> corpus_entries(const std::string& spec) {
  if (spec == "train") {
    return cross({{"zoo:resnet50:batch=16", "resnet"},
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
  }
  if (spec == "held-out") {
    return cross({{"zoo:rnnlm", "rnnlm"},
                  {"zoo:rnnlm:layers=4,hidden=1024", "rnnlm"},
                  {"zoo:nmt", "nmt"},
                  {"zoo:nmt:layers=4", "nmt"},
                  {"zoo:inception_v3", "inception"}},
                 {"k80x2", "k80x4", "hetero"});
  }
  if (spec == "tiny") {
    return std::vector<CorpusEntry>{{"zoo:layered:layers=4,width=2,hidden=256", "k80x2", "layered"},
                                    {"zoo:layered:layers=6,width=3,hidden=512", "hetero", "layered"}};
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
    std::string extra;
    if (!(fields >> e.graph >> e.cluster >> e.family) || (fields >> extra))
      return invalid_input(spec + ":" + std::to_string(number) + ": expected 'GRAPH CLUSTER FAMILY'");
    entries.push_back(e);
  }
  if (entries.empty()) return invalid_input(spec + ": no problems in the corpus (one 'GRAPH CLUSTER FAMILY' per line)");
  return entries;
}

}  // namespace devplace::cli
