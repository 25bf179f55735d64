// File: features.h
// The policy's input: one feature vector per group of the grouping, in group
// (topological) order. Plain C++, no torch, so it is tested and reused
// without LibTorch.
//
// Per group, following the paper's group embedding:
// - op types: counts of the group's ops per type bucket (types hashed into
//   kTypeBuckets buckets, so unseen graphs need no vocabulary), divided by
//   the group's op count;
// - sizes: log(1 + summed output bytes), log(1 + resident bytes), log(1 +
//   work in microseconds on its fastest device), each divided by its largest
//   value over the graph;
// - adjacency: the number of groups it reads from and writes to, each
//   divided by the largest; its position in topological order, 0..1;
// - output shape: the dimensions of its largest output tensor, the last
//   kShapeDims right-aligned and zero-padded (a scalar is all zeros), each
//   log(1 + dim) divided by the largest over the graph;
// - devices: one flag per device it may use.
// Every feature lies in [0, 1], so graphs of different scales train alike.
#pragma once

#include <vector>

#include "group/grouping.h"
#include "sim/problem.h"

namespace devplace::rl {

inline constexpr int kTypeBuckets = 16;
inline constexpr int kShapeDims = 4;
// Where each part of a row starts.
inline constexpr int kSizeFeatures = kTypeBuckets;               // 6 sizes, adjacency and position
inline constexpr int kShapeFeatures = kSizeFeatures + 6;
inline constexpr int kDeviceFeatures = kShapeFeatures + kShapeDims;

struct GroupFeatures {
  int num_groups = 0;
  int dim = 0;
  std::vector<float> values;  // num_groups x dim, row-major
  float at(int group, int k) const { return values[static_cast<size_t>(group) * dim + k]; }
};

// kTypeBuckets + 6 + kShapeDims + number of devices.
int feature_dim(int num_devices);

GroupFeatures group_features(const Problem& problem, const Grouping& grouping);

// For each group, the groups before it (in group order, so placed before it
// by a decoder that walks the groups in order) that it exchanges tensors
// with, in either direction, each weighted by the bytes exchanged over all
// the bytes the group exchanges with any group. A group's weights sum to at
// most 1 (less when it also talks to groups after it). CSR: the neighbours
// of group g are index[offsets[g] .. offsets[g + 1]).
struct PlacedNeighbours {
  std::vector<int64_t> offsets;  // num_groups + 1
  std::vector<int32_t> index;
  std::vector<float> weight;
};

PlacedNeighbours placed_neighbours(const Problem& problem, const Grouping& grouping);

// The speed prior's logit bonuses, num_groups x num_devices, row-major:
// weight * log(t_min / t_d) for each device d a group may use, t_d its
// work there and t_min its work on its fastest allowed device (<= 0; 0 on
// that device, and for a group with no work); 0 for the devices it may not
// use (the policy masks them).
std::vector<float> speed_prior_bonus(const Grouping& grouping, int num_devices, double weight);

// What the portable policy (portable_policy.h, pretrained placement) sees
// of a problem: nothing that depends on the number of devices, their order,
// the graph's size or its op names, so that one network reads any graph on
// any cluster.
// - group: a group's row of group_features without the device flags
//   (kPortableGroupFeatures values in [0, 1]);
// - pair, per group and device (kPairFeatures values in [0, 1]):
//   0: speed, 1 + log(t_min / t_d) / log(32) clipped to [0, 1]: 1 on the
//      group's fastest allowed device, 0 on one 32 times slower or more (1
//      for a group with no work);
//   1: room, the device's memory over all the groups' resident bytes,
//      clipped to 1: whether the whole model would fit there;
//   2: weight, the group's resident bytes over the device's memory,
//      clipped to 1;
// - allowed: whether the group may use the device;
// - work and memory, per group and device, for the decoder's running
//   totals (how loaded each device is so far): the group's time there over
//   the whole graph's work on its fastest devices (0 where it may not
//   run), and its resident bytes over the device's memory.
inline constexpr int kPortableGroupFeatures = kDeviceFeatures;
inline constexpr int kPairFeatures = 3;
struct PortableFeatures {
  int num_groups = 0;
  int num_devices = 0;
  std::vector<float> group;     // num_groups x kPortableGroupFeatures
  std::vector<float> pair;      // num_groups x num_devices x kPairFeatures
  std::vector<uint8_t> allowed; // num_groups x num_devices
  std::vector<float> work;      // num_groups x num_devices
  std::vector<float> memory;    // num_groups x num_devices
};
PortableFeatures portable_features(const Problem& problem, const Grouping& grouping);

// The bytes each pair of groups exchanges, in either direction (a tensor
// counts once per group that reads it outside its producer's group); one
// entry per pair, first < second.
struct ExchangedBytes {
  int32_t first = 0, second = 0;
  double bytes = 0;
};
std::vector<ExchangedBytes> exchanged_bytes(const Problem& problem, const Grouping& grouping);

// The placed neighbours of coarser groups: unit u of the pairs belongs to
// group group_of[u] (0 <= group_of[u] < num_groups); pairs inside one group
// vanish, pairs between the same two groups add up.
PlacedNeighbours placed_neighbours(const std::vector<ExchangedBytes>& pairs, const int64_t* group_of, int num_groups);

}  // namespace devplace::rl
