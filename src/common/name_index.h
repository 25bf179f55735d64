// File: name_index.h
// NameIndex: names (op, tensor and group names) to dense ids, for readers
// and the graph builder. An open-addressing table in one array: a lookup
// is one hash and, nearly always, one or two cache lines, where std::unordered_map
// follows a pointer per node (the JSON reader of a 50k-op graph spent a
// fifth of its time there). It does not own the names: they must outlive
// the index (strings of a graph under construction, or of a parsed file).
//
//   NameIndex ids(ops.size());
//   if (!ids.insert(op.name, id).second) ... duplicate name ...
//   int32_t producer = ids.find("fc1:0");  // -1 when absent
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace devplace {

class NameIndex {
 public:
  // Room for `expected` names before the table grows.
  explicit NameIndex(size_t expected = 0) { rehash(capacity_for(expected)); }

  // Adds name -> id (id >= 0) unless the name is there. Returns the id
  // stored under the name and whether this call stored it.
  std::pair<int32_t, bool> insert(std::string_view name, int32_t id) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    const uint64_t h = hash(name);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id < 0) {
        s = Slot{name.data(), static_cast<uint32_t>(name.size()), tag_of(h), id};
        ++size_;
        return {id, true};
      }
      if (s.holds(name, tag_of(h))) return {s.id, false};
    }
  }

  // The id of `name`, or -1.
  int32_t find(std::string_view name) const {
    const uint64_t h = hash(name);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id < 0) return -1;
      if (s.holds(name, tag_of(h))) return s.id;
    }
  }

  size_t size() const { return size_; }

 private:
  // 24 bytes: the name, 32 bits of its hash (a probe that meets another
  // name of the same length, common in graphs, "l12/n3:0" and "l12/n4:0",
  // rarely compares bytes) and the id. Names longer than 4 GiB are not names.
  struct Slot {
    const char* data = nullptr;
    uint32_t length = 0;
    uint32_t tag = 0;  // the hash's high half
    int32_t id = -1;   // -1: empty
    std::string_view view() const { return {data, length}; }
    bool holds(std::string_view name, uint32_t name_tag) const { return tag == name_tag && view() == name; }
  };
  static uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32); }

  static uint64_t hash(std::string_view name) { return std::hash<std::string_view>{}(name); }
  // A power of two at least twice `expected` (the table stays at most half full).
  static size_t capacity_for(size_t expected) {
    size_t c = 16;
    while (c < expected * 2) c *= 2;
    return c;
  }

  void rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.id < 0) continue;
      size_t i = hash(s.view()) & mask_;
      while (slots_[i].id >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace devplace
