// File: rl_library.cc
// dlopen of libdevplace_rl.so on first use (see rl_library.h).
#include "rl/rl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "common/check.h"

namespace devplace {

namespace {

constexpr const char* kLibraryName = "libdevplace_rl.so";

// The folder of the shared object that holds this code (libdevplace_learned.so).
std::string own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

Result<const RlLibraryApi*> load() {
  const char* env = std::getenv("DEVPLACE_RL_LIBRARY");
  std::string path = env && *env ? env : own_folder();
  if (!(env && *env)) path = path.empty() ? kLibraryName : path + "/" + kLibraryName;
  // RTLD_GLOBAL: Open MPI's components, which it dlopens itself, resolve libmpi's symbols globally.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return internal_error(path + ": cannot load the rl library (LibTorch and MPI): " + (why ? why : "unknown") +
                               " (set DEVPLACE_RL_LIBRARY to its path)");
  }
  using Entry = const RlLibraryApi* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kRlLibraryApiSymbol));
  if (entry == nullptr) return internal_error(path + ": not the rl library (no " + kRlLibraryApiSymbol + ")");
  const RlLibraryApi* api = entry();
  if (api == nullptr || api->version != kRlLibraryApiVersion)
    return internal_error(path + ": the rl library is from another build of devplace (API version " +
                               std::to_string(api ? api->version : -1) + ", expected " +
                               std::to_string(kRlLibraryApiVersion) + ")");
  return api;
}

bool g_mpi_started = false;

class RlLibraryPlacer : public Placer {
 public:
  explicit RlLibraryPlacer(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }

  Status configure(const MethodOptions& options) override {
    if (name_ == "pretrained") {
      DEVPLACE_ASSIGN_OR_RETURN(options_, rl::parse_pretrained_options(options));
    } else {
      DEVPLACE_ASSIGN_OR_RETURN(options_, rl::parse_training_options(options));
    }
    if (name_ != "rl" && !options_.init_path.empty()) return invalid_input("--init applies to --method rl only");
    // An option the method has no use for is an error, not a silent no-op.
    if (name_ == "hierarchical" && options.count("speed-prior")) return invalid_input("--speed-prior applies to --method rl only");
    if (name_ == "rl" && options.count("grouper-prior"))
      return invalid_input("--grouper-prior applies to --method hierarchical only (rl has no grouper)");
    // Loading LibTorch takes 0.3-0.4 s: done here, before place() and its
    // search timer, so a learned method's search time is its own work, as
    // every other method's is, and a missing library fails before any work.
    DEVPLACE_ASSIGN_OR_RETURN(const RlLibraryApi* api, rl_library());
    placer_ = api->make_placer(name_, options_);
    if (!placer_) return internal_error("the rl library has no placer named '" + name_ + "'");
    return Status::ok_status();
  }

  Result<Placement> place(const PlaceContext& context) override {
    if (!placer_) DEVPLACE_RETURN_IF_ERROR(configure({}));  // used without configure(): the defaults
    return placer_->place(context);
  }

  std::string label() const override { return rl::pipeline_label(name_, options_); }
  std::optional<ResumedWork> resumed() const override { return placer_ ? placer_->resumed() : std::nullopt; }
  std::optional<FinalPolicy> final_policy() const override { return placer_ ? placer_->final_policy() : std::nullopt; }

 private:
  std::string name_;
  rl::TrainingRunOptions options_;
  std::unique_ptr<Placer> placer_;
};

template <const char* kName>
std::unique_ptr<Placer> make_learned() {
  return std::make_unique<RlLibraryPlacer>(kName);
}
constexpr char kRl[] = "rl";
constexpr char kHierarchical[] = "hierarchical";
constexpr char kPretrained[] = "pretrained";

}  // namespace

Result<const RlLibraryApi*> rl_library() {
  static std::once_flag once;
  static Result<const RlLibraryApi*> loaded = internal_error("not loaded");
  std::call_once(once, [] { loaded = load(); });
  return loaded;
}

void register_learned_placers() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::vector<MethodOptionSpec>& options = rl::training_option_specs();
    const PlacerInfo learned[] = {
        {"rl", PlacerRole::kLearned, "the paper's method: a seq2seq policy over the groups trained by REINFORCE on step times",
         &make_learned<kRl>, options},
        {"hierarchical", PlacerRole::kLearned,
         "the ICLR 2018 planner: a learned grouper of the co-location groups and the seq2seq placer, trained jointly",
         &make_learned<kHierarchical>, options},
        {"pretrained", PlacerRole::kLearned,
         "a portable policy pretrained on many graphs (devplace pretrain): its greedy placement and the best of a few "
         "samples, no training",
         &make_learned<kPretrained>, rl::pretrained_option_specs()},
    };
    for (const PlacerInfo& info : learned) DEVPLACE_CHECK(register_placer(info).ok());
  });
}

Status start_mpi() {
  DEVPLACE_ASSIGN_OR_RETURN(const RlLibraryApi* api, rl_library());
  if (!api->mpi_start()) return invalid_input("MPI cannot start (run devplace under mpirun)");
  g_mpi_started = true;
  return Status::ok_status();
}

int mpi_rank() { return g_mpi_started ? rl_library().value()->mpi_rank() : 0; }

int mpi_size() { return g_mpi_started ? rl_library().value()->mpi_size() : 1; }

}  // namespace devplace
