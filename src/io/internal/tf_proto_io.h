// File: tf_proto_io.h
// Reading and writing TensorFlow protos (binary or protobuf text format)
// with errors that name the file and, for text, the line and column. Every
// protobuf error becomes an Error here; nothing is logged. Private to the
// TensorFlow importer and writer.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace google::protobuf {
class Message;
}

namespace devplace {

enum class TfProtoSyntax { kBinary, kText };

// Text for ".pbtxt" and ".txt" paths (".pb.txt" too), binary otherwise.
TfProtoSyntax tf_proto_syntax(const std::string& path);

// Parses `bytes` into `message` (cleared first). Text: with
// `skip_unknown_text_fields`, fields outside devplace's subset are skipped;
// without, they are an error naming the line. Errors: "SOURCE: not a WHAT (...)"
// or "SOURCE:LINE:COL: ...".
Status parse_tf_proto(std::string_view bytes, TfProtoSyntax syntax, const std::string& source, const std::string& what,
                      bool skip_unknown_text_fields, google::protobuf::Message* message);

// `message` serialized in `syntax` (binary keeps unknown fields).
Result<std::string> serialize_tf_proto(const google::protobuf::Message& message, TfProtoSyntax syntax, const std::string& path);

}  // namespace devplace
