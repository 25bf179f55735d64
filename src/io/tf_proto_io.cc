// File: tf_proto_io.cc
// Binary and text TensorFlow protos (see internal/tf_proto_io.h).
#include "io/internal/tf_proto_io.h"

#include <algorithm>
#include <climits>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include "common/format.h"

namespace devplace {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keeps the first error of a text parse (protobuf's default collector logs them all).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (!error_.empty()) return;
    line_ = line;
    column_ = column;
    error_ = message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}

  bool has_error() const { return !error_.empty(); }
  // "LINE:COL: message", 1-based as editors count.
  std::string text() const { return std::to_string(line_ + 1) + ":" + std::to_string(column_ + 1) + ": " + one_line(error_, 300); }

 private:
  int line_ = 0;
  int column_ = 0;
  std::string error_;
};

}  // namespace

TfProtoSyntax tf_proto_syntax(const std::string& path) {
  return ends_with(path, ".pbtxt") || ends_with(path, ".txt") ? TfProtoSyntax::kText : TfProtoSyntax::kBinary;
}

Status parse_tf_proto(std::string_view bytes, TfProtoSyntax syntax, const std::string& source, const std::string& what,
                      bool skip_unknown_text_fields, google::protobuf::Message* message) {
  message->Clear();
  if (bytes.size() >= static_cast<size_t>(INT_MAX))
    return invalid_input(source + ": larger than the 2 GiB a protobuf can hold");
  if (syntax == TfProtoSyntax::kBinary) {
    if (!message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return invalid_input(source + ": not a " + what + " (the protobuf does not parse: truncated or corrupted file, or text format?)");
    return Status::ok_status();
  }
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(skip_unknown_text_fields);
  parser.AllowUnknownExtension(skip_unknown_text_fields);
  // As deep as a binary parse may go (protobuf's default there), so that a
  // deeply nested text cannot exhaust the stack.
  parser.SetRecursionLimit(100);
  if (!parser.ParseFromString(std::string(bytes), message)) {
    if (errors.has_error()) return invalid_input(source + ":" + errors.text() + " (reading a " + what + " in text format)");
    return invalid_input(source + ": not a " + what + " in text format");
  }
  return Status::ok_status();
}

Result<std::string> serialize_tf_proto(const google::protobuf::Message& message, TfProtoSyntax syntax, const std::string& path) {
  std::string out;
  if (syntax == TfProtoSyntax::kBinary) {
    if (!message.SerializeToString(&out)) return internal_error(path + ": cannot serialize the GraphDef");
    return out;
  }
  google::protobuf::TextFormat::Printer printer;
  if (!printer.PrintToString(message, &out)) return internal_error(path + ": cannot print the GraphDef as text");
  return out;
}

}  // namespace devplace
