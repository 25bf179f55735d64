// File: timeline_svg.cc
// The Gantt chart of a simulated step (see svg.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/format.h"
#include "report/svg.h"

namespace devplace::report {

namespace {

constexpr double kWidth = 1160, kLabel = 200, kLaneHeight = 16, kLaneGap = 5, kAxis = 22;

const char* phase_colour(OpPhase phase) {
  switch (phase) {
    case OpPhase::kForward: return "#4e79a7";
    case OpPhase::kBackward: return "#f28e2b";
    case OpPhase::kUpdate: return "#59a14f";
  }
  return "#999";
}
constexpr const char* kTransferColour = "#b07aa1";

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

// A "nice" tick spacing: 1, 2 or 5 times a power of ten, about span / 8.
double tick_step(double span) {
  if (!(span > 0)) return 1;
  const double raw = span / 8, p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

// A tick's time: "0", "250 ms", "1.5 s", "20 us", as short as the spacing allows.
std::string tick_label(double t, double step) {
  char buf[32];
  if (t == 0) return "0";
  if (step >= 1) std::snprintf(buf, sizeof buf, "%g s", t);
  else if (step >= 1e-3) std::snprintf(buf, sizeof buf, "%g ms", std::round(t * 1e6) / 1e3);
  else std::snprintf(buf, sizeof buf, "%g us", std::round(t * 1e9) / 1e3);
  return buf;
}

// Rectangles of one lane, merging neighbours narrower than a pixel.
class LaneWriter {
 public:
  LaneWriter(std::ostringstream& out, double y, double scale) : out_(out), y_(y), scale_(scale) {}
  ~LaneWriter() { flush(); }

  // `title` is called only when the item gets a rectangle of its own.
  template <typename Title>
  void add(double start_s, double end_s, const char* colour, Title title, const std::string& name) {
    const double x0 = kLabel + start_s * scale_, x1 = kLabel + end_s * scale_;
    const bool small = x1 - x0 < 1.0;
    if (count_ > 0 && small && small_run_ && colour == colour_ && x0 - x1_ < 0.5) {
      x1_ = std::max(x1_, x1);
      end_s_ = std::max(end_s_, end_s);
      last_ = name;
      ++count_;
      return;
    }
    flush();
    x0_ = x0;
    x1_ = x1;
    start_s_ = start_s;
    end_s_ = end_s;
    colour_ = colour;
    small_run_ = small;
    count_ = 1;
    first_ = name;
    last_ = name;
    title_ = title();
  }

 private:
  void flush() {
    if (count_ == 0) return;
    const std::string title = count_ == 1 ? title_
                                          : std::to_string(count_) + " items, " + first_ + " ... " + last_ + ", " +
                                                ms(start_s_) + " - " + ms(end_s_);
    char buf[160];
    std::snprintf(buf, sizeof buf, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">", x0_, y_,
                  std::max(0.5, x1_ - x0_), kLaneHeight, colour_);
    out_ << buf << "<title>" << html_escape(title) << "</title></rect>";
    count_ = 0;
  }

  std::ostringstream& out_;
  double y_, scale_;
  double x0_ = 0, x1_ = 0, start_s_ = 0, end_s_ = 0;
  const char* colour_ = nullptr;
  bool small_run_ = false;
  int count_ = 0;
  std::string first_, last_, title_;
};

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string timeline_svg(const Problem& problem, const SimResult& result) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  // Lanes: every device, then the link directions that carried something.
  std::vector<std::string> lanes;
  for (DeviceId d = 0; d < c.num_devices(); ++d) lanes.push_back(c.device(d).name);
  std::map<ChannelId, int> channel_lane;
  for (const TransferInterval& t : result.transfers) {
    for (ChannelId ch : c.route(t.from, t.to).channels) channel_lane.emplace(ch, 0);
  }
  for (auto& [ch, lane] : channel_lane) {
    lane = static_cast<int>(lanes.size());
    lanes.push_back(c.channel_name(ch));
  }
  const double span = std::max(result.step_time_s, 1e-12);
  const double scale = (kWidth - kLabel - 10) / span;
  const double height = kAxis + lanes.size() * (kLaneHeight + kLaneGap) + 4;
  auto lane_y = [&](int lane) { return kAxis + lane * (kLaneHeight + kLaneGap); };

  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">",
                kWidth, height, kWidth, height);
  out << buf;
  // Time axis.
  const double step = tick_step(span);
  for (double t = 0; t <= span * 1.0001; t += step) {
    const double x = kLabel + t * scale;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.2f\" y=\"12\" text-anchor=\"middle\" fill=\"#555\">%s</text>",
                  x, kAxis - 4, x, height, x, tick_label(t, step).c_str());
    out << buf;
  }
  // Lane backgrounds (what shows through is idle time) and labels.
  for (int lane = 0; lane < static_cast<int>(lanes.size()); ++lane) {
    std::snprintf(buf, sizeof buf, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"#f1f1f1\"/>", kLabel,
                  lane_y(lane), span * scale, kLaneHeight);
    out << buf;
  }
  // Ops per device, in start order.
  std::vector<std::vector<const OpInterval*>> per_device(c.num_devices());
  for (const OpInterval& op : result.ops) per_device[op.device].push_back(&op);
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    out << "<g class=\"lane device\" data-lane=\"" << html_escape(lanes[d]) << "\">";
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", kLabel - 6, lane_y(d) + 12);
    out << buf << html_escape(lanes[d]) << "</text>";
    {
      LaneWriter lane(out, lane_y(d), scale);
      for (const OpInterval* iv : per_device[d]) {
        const Op& op = g.op(iv->op);
        lane.add(iv->start_s, iv->end_s, phase_colour(op.phase), [&] {
          return op.name + " (" + op.type + ", " + std::string(op_phase_name(op.phase)) + ") on " + lanes[d] + ": " +
                 ms(iv->start_s) + " - " + ms(iv->end_s) + " (" + ms(iv->end_s - iv->start_s) + ")";
        }, op.name);
      }
    }
    out << "</g>";
  }
  // Transfers per link direction, in issue order.
  std::vector<std::vector<const TransferInterval*>> per_channel(lanes.size());
  for (const TransferInterval& t : result.transfers) {
    for (ChannelId ch : c.route(t.from, t.to).channels) per_channel[channel_lane[ch]].push_back(&t);
  }
  for (const auto& [ch, lane_index] : channel_lane) {
    auto& items = per_channel[lane_index];
    std::stable_sort(items.begin(), items.end(), [](const TransferInterval* a, const TransferInterval* b) { return a->start_s < b->start_s; });
    out << "<g class=\"lane link\" data-lane=\"" << html_escape(lanes[lane_index]) << "\">";
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", kLabel - 6, lane_y(lane_index) + 12);
    out << buf << html_escape(lanes[lane_index]) << "</text>";
    {
      LaneWriter lane(out, lane_y(lane_index), scale);
      for (const TransferInterval* t : items) {
        const Tensor& tensor = g.tensor(t->tensor);
        lane.add(t->start_s, t->end_s, kTransferColour, [&] {
          return tensor.name + " (" + format_bytes(tensor.bytes) + ") " + c.device(t->from).name + " -> " +
                 c.device(t->to).name + ": " + ms(t->start_s) + " - " + ms(t->end_s);
        }, tensor.name);
      }
    }
    out << "</g>";
  }
  out << "</svg>";
  return out.str();
}

}  // namespace devplace::report
