// File: tf_device_spec.h
// TensorFlow device strings ("/job:localhost/replica:0/task:0/device:GPU:1",
// "/device:CPU:0", "/gpu:0", "/device:GPU:*", "@other_node") read into what
// devplace uses of them: the device kind, the device index (or any), or the
// node to co-locate with. Private to the TensorFlow importer and writer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

struct TfDeviceSpec {
  std::optional<DeviceKind> kind;  // none: the string names no device type (empty, or "/job:worker" alone)
  int index = -1;                  // -1: any device of the kind ("GPU:*", or no index)
  std::string colocate_with;       // "@node": the node; the other fields are then unset
};

// Errors name the part that is wrong, without the file: "device '/device:TPU:0': devplace places on CPU and GPU devices only".
// The job, replica and task parts are read and ignored: devplace places on one machine.
Result<TfDeviceSpec> parse_tf_device_spec(std::string_view text);

// devplace's device name for a spec with a kind and an index: "/gpu:1", "/cpu:0".
std::string devplace_device_name(DeviceKind kind, int index);

}  // namespace devplace
