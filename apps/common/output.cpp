#include "apps/common/output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/log.hpp"

namespace fk::app {

namespace fs = std::filesystem;

void ensure_output_dir(const std::string& dir) {
  check_output_dir(dir);  // a file in the way, or a place that cannot be written, with the reason
  std::error_code ec;
  fs::create_directories(fs::path(dir), ec);
  if (ec) throw Error("cannot create output directory '" + dir + "': " + ec.message());
  if (!fs::is_directory(fs::path(dir), ec)) throw Error("cannot create output directory '" + dir + "'");
}

void check_output_dir(const std::string& dir) {
  FK_CHECK(!dir.empty(), "empty output directory name");
  std::error_code ec;
  const fs::path p = fs::absolute(fs::path(dir), ec);
  if (ec) return;  // ensure_output_dir will say what is wrong
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec))
      throw Error("output directory '" + dir + "' exists and is not a directory");
    if (::access(p.c_str(), W_OK | X_OK) != 0)
      throw Error("output directory '" + dir + "' is not writable: " + std::strerror(errno));
    return;
  }
  fs::path parent = p.parent_path();
  while (!parent.empty() && parent != parent.root_path() && !fs::exists(parent, ec))
    parent = parent.parent_path();
  if (parent.empty() || !fs::exists(parent, ec)) return;
  if (!fs::is_directory(parent, ec))
    throw Error("cannot create output directory '" + dir + "': '" + parent.string() +
                "' is not a directory");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw Error("cannot create output directory '" + dir + "': '" + parent.string() +
                "' is not writable: " + std::strerror(errno));
}

// ---- JsonObject ---------------------------------------------------------------------------------

JsonObject& JsonObject::add_raw(const std::string& key, const std::string& json) {
  if (!body_.empty()) body_ += ',';
  body_ += json_quote(key);
  body_ += ':';
  body_ += json;
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, double value) {
  return add_raw(key, std::isfinite(value) ? format_double(value) : "null");
}
JsonObject& JsonObject::add(const std::string& key, std::int64_t value) {
  return add_raw(key, std::to_string(value));
}
JsonObject& JsonObject::add(const std::string& key, const std::string& value) {
  return add_raw(key, json_quote(value));
}
JsonObject& JsonObject::add(const std::string& key, bool value) {
  return add_raw(key, value ? "true" : "false");
}
JsonObject& JsonObject::add(const std::string& key, const std::optional<double>& value) {
  return value ? add(key, *value) : add_null(key);
}
JsonObject& JsonObject::add_null(const std::string& key) { return add_raw(key, "null"); }

void add_memory_peaks(JsonObject& j, const MemoryPeaks& peaks, bool on_gpu) {
  std::optional<double> host, device;
  if (peaks.host_bytes) host = std::round(mebibytes(*peaks.host_bytes));
  if (on_gpu) device = std::round(mebibytes(peaks.device_bytes));
  j.add("peak_host_mib", host).add("peak_device_mib", device);
}

namespace {
std::string mib(std::int64_t bytes) {
  return std::to_string(std::llround(mebibytes(bytes))) + " MiB";
}
}  // namespace

std::string device_memory_note(DeviceKind device) {
  return device == DeviceKind::kGpu ? "; " + mib(device_bytes_in_use()) + " on the GPU" : "";
}

std::string describe_memory_peaks(const MemoryPeaks& peaks, bool on_gpu) {
  std::string text = "host " + (peaks.host_bytes ? mib(*peaks.host_bytes) : "unknown");
  if (on_gpu) text += ", GPU " + mib(peaks.device_bytes) + " in factorkit's buffers";
  return text;
}

// ---- MetricsWriter ------------------------------------------------------------------------------

namespace {

std::FILE* open_or_throw(const std::string& path, const char* mode) {
  std::FILE* f = std::fopen(path.c_str(), mode);
  if (!f)
    throw Error("cannot open metrics file '" + path + "' for writing: " + std::strerror(errno));
  return f;
}

// The iteration number of a line written by MetricsWriter ({"iter":N,...}), or -1. A line that a
// failed write cut short (a full disk) lacks its closing brace: -1 too, since what is left of its
// number ("{\"iter\":1" of iteration 12) may look like an iteration before the checkpoint.
std::int64_t iter_of(const std::string& line) {
  static const std::string kKey = "{\"iter\":";
  if (line.compare(0, kKey.size(), kKey) != 0 || line.back() != '}') return -1;
  char* end = nullptr;
  const long long v = std::strtoll(line.c_str() + kKey.size(), &end, 10);
  return end == line.c_str() + kKey.size() ? -1 : v;
}

}  // namespace

MetricsWriter MetricsWriter::create(const std::string& path) {
  return MetricsWriter(path, open_or_throw(path, "w"));
}

MetricsWriter MetricsWriter::resume(const std::string& path, std::int64_t last_iter) {
  std::vector<std::string> keep;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const std::int64_t it = iter_of(line);
      if (it >= 0 && it <= last_iter) keep.push_back(line);
    }
  }
  io::AtomicFile rewritten(path);
  for (const std::string& l : keep) rewritten.stream() << l << '\n';
  rewritten.commit();
  return MetricsWriter(path, open_or_throw(path, "a"));
}

MetricsWriter::~MetricsWriter() {
  if (file_) std::fclose(file_);
}
MetricsWriter::MetricsWriter(MetricsWriter&& other) noexcept
    : path_(std::move(other.path_)), file_(std::exchange(other.file_, nullptr)) {}
MetricsWriter& MetricsWriter::operator=(MetricsWriter&& other) noexcept {
  if (this != &other) {
    if (file_) std::fclose(file_);
    path_ = std::move(other.path_);
    file_ = std::exchange(other.file_, nullptr);
  }
  return *this;
}

void MetricsWriter::write(const JsonObject& line) {
  FK_CHECK(file_ != nullptr, "metrics writer is not open");
  const std::string text = line.str() + "\n";
  // Write-through: a killed run keeps every complete line it wrote.
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw Error("write to metrics file '" + path_ + "' failed: " + std::strerror(errno));
}

// ---- configuration ------------------------------------------------------------------------------

void remove_stale_output(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) throw Error("cannot remove the earlier run's " + path + ": " + ec.message());
}

void check_outputs_are_not_inputs(const std::string& dir, const std::vector<std::string>& names,
                                  const std::vector<std::string>& inputs) {
  for (const std::string& name : names)
    for (const std::string& input : inputs) {
      std::error_code ec;  // false, not an error, when either does not exist
      if (std::filesystem::equivalent(dir + "/" + name, input, ec))
        usage_fail("out", dir + "/" + name + " would be replaced, and it is this run's input " +
                              input + "; choose another --out");
    }
}

void check_no_directory_in_the_way(const std::string& dir, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    std::error_code ec;  // false, not an error, when it does not exist
    if (fs::is_directory(fs::path(dir) / name, ec))
      usage_fail("out", dir + "/" + name + " is a directory, where this run writes its " + name +
                            " file: move or remove it, or choose another --out");
  }
}

namespace {

// The app a training run's config.ini names in its first line (write_resolved_config), or "".
std::string config_app(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return {};
  static const std::string kHead = "# resolved configuration of an ";
  if (line.compare(0, kHead.size(), kHead) != 0) return {};
  const std::string rest = line.substr(kHead.size());
  const std::string name = rest.substr(0, rest.find(' '));
  return name.compare(0, 3, "fk-") == 0 ? name : std::string();
}

std::string model_ini_app(const std::string& dir) {
  const std::string ini = dir + "/model.ini";
  std::error_code ec;
  if (!fs::is_regular_file(ini, ec)) return {};
  std::ifstream in(ini);
  std::string line, named;  // `named`: the app the first line names
  for (bool first = true; std::getline(in, line); first = false) {
    const std::string t = trim_blanks(line);
    static const std::string kHead = "# fk-";
    if (first && t.compare(0, kHead.size(), kHead) == 0) {
      const std::string name = t.substr(2, t.find(' ', 2) - 2);
      if (t.compare(2 + name.size(), 6, " model") == 0) named = name;
    }
    const auto eq = t.find('=');
    if (t.empty() || t[0] == '#' || t[0] == ';' || eq == std::string::npos) continue;
    if (trim_blanks(t.substr(0, eq)) == kModelAppKey) return trim_blanks(t.substr(eq + 1));
  }
  if (named == "fk-als" && fs::exists(dir + "/item_means.npy", ec)) return "fk-sfa";
  return named;
}

}  // namespace

std::string model_app(const std::string& dir, std::string* source) {
  std::string app = model_ini_app(dir);
  if (!app.empty()) {
    if (source) *source = dir + "/model.ini";
    return app;
  }
  app = config_app(dir + "/config.ini");
  if (!app.empty() && source) *source = dir + "/config.ini";
  return app;
}

void check_no_other_app_model(const std::string& dir, const std::string& app) {
  std::string source;
  std::string holder = model_app(dir, &source);
  if (holder.empty()) holder = model_app(dir + "/" + kPreviousRunDir, &source);  // kept there
  if (!holder.empty() && holder != app)
    usage_fail("out", dir + " holds an " + holder + " model or run (" + source + "); " + app +
                          " does not write over another app's: choose another --out, or "
                          "remove that folder first");
}

namespace {
// A training run's results are complete when its last files exist: model.ini (every app writes
// one; fk-lda infer and fk-als/fk-sfa recommend and similar require it) and summary.json, each
// written after the rest.
// A training run moves them out of `dir` as it starts (keep_previous_run), so that a run that
// stops early (an error, a kill, a full disk) leaves no complete-looking mix of its files and an
// earlier run's.
void remove_completion_markers(const std::string& dir) {
  for (const char* name : {"model.ini", "summary.json"}) remove_stale_output(dir + "/" + name);
}

struct KeptRun {
  std::string dir;
  std::vector<std::string> names;
  bool kept = false;      // an earlier run's files are in dir/previous-run
  bool finished = false;  // its run finished inside a DeferredFinish: removed when that commits
};
// The --out folders of this process's training runs that have not finished: when the process
// fails, restore_previous_runs puts back what they kept, or removes what they wrote.
std::vector<KeptRun>& unfinished_runs() {
  static std::vector<KeptRun> runs;
  return runs;
}
int g_deferring = 0;  // open DeferredFinish scopes

// rename(2): a file replaces a file at `to`, never a folder that holds something. Throws fk::Error
// naming both when it cannot.
void move_entry(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw Error("cannot move " + from.string() + " to " + to.string() + ": " + ec.message());
}

// `names` with model.ini first: it marks a complete model, so it is the first to leave a folder
// (and the last to come back, move_back).
std::vector<std::string> model_ini_first(std::vector<std::string> names) {
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& name) { return name == "model.ini"; });
  return names;
}

// Removes `p` (a folder, or a file of that name) with what it holds, model.ini first: a removal
// cut short leaves no folder that looks like a complete model. Throws fk::Error when it cannot.
void remove_run_folder(const fs::path& p) {
  std::error_code ec, type_ec;
  if (fs::is_directory(p, type_ec)) fs::remove_all(p / "model.ini", ec);
  if (!ec) fs::remove_all(p, ec);
  if (ec) throw Error("cannot remove " + p.string() + ": " + ec.message());
}

void remove_kept(const std::string& dir) {
  try {
    remove_run_folder(fs::path(dir) / kPreviousRunDir);
  } catch (const Error& e) {
    log_warn() << "the earlier run's files stay: " << e.what();
  }
}

// Undoes a move into `dir`/previous-run.moving however far it got (keep_previous_run's, or
// restore_previous_runs' way back): every entry goes back into `dir`, model.ini last so that
// `dir` looks complete only once it is, and a stopped-run (kept beside a model in previous-run,
// and carried along) back into previous-run; then the folder goes. A metrics.jsonl that `dir`
// still holds stays: the one in the folder is a resumed run's copy, perhaps cut short. Returns
// what it moved back, in order. Throws (naming the entry) where a move fails: what is left stays
// in the folder for the next try.
std::vector<std::string> move_back(const fs::path& dir) {
  const fs::path moving = dir / kMovingDir;
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(moving))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& name) { return name != "model.ini"; });
  std::vector<std::string> moved;
  for (const std::string& name : names) {
    std::error_code ec;
    if (name == "metrics.jsonl" && fs::exists(dir / name, ec)) {
      fs::remove(moving / name, ec);
      continue;
    }
    if (name == kStoppedRunDir) {
      fs::create_directories(dir / kPreviousRunDir, ec);
      move_entry(moving / name, dir / kPreviousRunDir / name);
      moved.push_back(std::string(kPreviousRunDir) + "/" + name);
    } else {
      move_entry(moving / name, dir / name);
      moved.push_back(name);
    }
  }
  std::error_code ec;
  fs::remove(moving, ec);
  if (ec) throw Error("cannot remove " + moving.string() + ": " + ec.message());
  return moved;
}
}  // namespace

void recover_interrupted_move(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kMovingDir, ec)) return;
  const std::vector<std::string> moved = move_back(dir);
  std::string list;
  for (const std::string& name : moved) list += (list.empty() ? "" : ", ") + name;
  log_warn() << dir << "/" << kMovingDir << " was left by a run stopped while it moved an earlier "
             << "run's files; put back in " << dir << ": "
             << (list.empty() ? std::string("nothing to put back") : list);
}

void keep_previous_run(const std::string& dir, const std::vector<std::string>& names,
                       bool keep_checkpoint) {
  recover_interrupted_move(dir);  // an app's check_training_out did, before its data load
  const fs::path out(dir), kept = out / kPreviousRunDir, moving = out / kMovingDir;
  std::error_code ec;
  const bool complete = fs::exists(out / "model.ini", ec);
  const bool checkpoint = !keep_checkpoint && fs::exists(out / "checkpoint", ec);
  if (!complete && !checkpoint) {
    remove_completion_markers(dir);  // a summary.json without model.ini
    unfinished_runs().push_back({dir, names, fs::is_directory(kept, ec)});
    return;
  }
  // What goes where: a complete model in `dir` is newer than anything kept, and replaces it. A
  // stopped run's checkpoint (with its configuration and log) replaces a kept stopped run, but
  // never a kept complete model: it goes beside that, into previous-run/stopped-run.
  const fs::path to =
      complete || !fs::exists(kept / "model.ini", ec) ? kept : kept / kStoppedRunDir;
  // Each rename is atomic, a set of them is not: the files go into previous-run.moving (model.ini
  // first), which then replaces `to` whole, so that a kill on the way leaves a folder that says
  // a move was cut short and holds what it moved (recover_interrupted_move moves it back). A
  // stopped run kept beside a model in `to` stays: it goes along in the folder.
  try {
    fs::create_directory(moving, ec);
    if (ec) throw Error("cannot create " + moving.string() + ": " + ec.message());
    for (const std::string& name : model_ini_first(names)) {
      if (!fs::is_regular_file(out / name, ec)) continue;
      if (keep_checkpoint && name == "metrics.jsonl") {  // a resumed run goes on writing it
        fs::copy_file(out / name, moving / name, ec);
        if (ec) throw Error("cannot copy " + (out / name).string() + ": " + ec.message());
      } else {
        move_entry(out / name, moving / name);
      }
    }
    if (checkpoint) move_entry(out / "checkpoint", moving / "checkpoint");
    if (fs::is_directory(to / kStoppedRunDir, ec))
      move_entry(to / kStoppedRunDir, moving / kStoppedRunDir);
    remove_run_folder(to);
    move_entry(moving, to);
  } catch (const std::exception&) {
    std::error_code exists_ec;
    if (fs::exists(moving, exists_ec)) {
      try {
        move_back(out);
      } catch (const std::exception& e) {
        log_warn() << "the earlier run's files could not all be put back (" << e.what()
                   << "): they are in " << moving.string() << ", which the next run into " << dir
                   << " puts back";
      }
    }
    throw;
  }
  log_info() << "the earlier run's "
             << (complete && checkpoint ? "model and checkpoint"
                 : complete             ? "model"
                                        : "checkpoint")
             << " in " << dir << " moved to " << to.string()
             << " until this run completes; put back if it fails, left there if it is killed";
  unfinished_runs().push_back({dir, names, true});
}

void finish_run(const std::string& dir) {
  auto& runs = unfinished_runs();
  for (auto it = runs.begin(); it != runs.end();) {
    if (it->dir != dir) {
      ++it;
    } else if (g_deferring > 0) {
      (it++)->finished = true;
    } else {
      remove_kept(dir);
      it = runs.erase(it);
    }
  }
}

DeferredFinish::DeferredFinish() { ++g_deferring; }

DeferredFinish::~DeferredFinish() {
  if (!committed_) --g_deferring;  // an exception: run_main restores every kept run
}

void DeferredFinish::commit() {
  committed_ = true;
  if (--g_deferring > 0) return;
  auto& runs = unfinished_runs();
  for (auto it = runs.begin(); it != runs.end();)
    if (it->finished) {
      remove_kept(it->dir);
      it = runs.erase(it);
    } else {
      ++it;
    }
}

std::string missing_model_hint(const std::string& dir) {
  std::error_code ec;
  const fs::path kept = fs::path(dir) / kPreviousRunDir;
  if (fs::exists(kept / "model.ini", ec))
    return "; " + kept.string() +
           " holds an earlier run's model (a later run over it has not finished): give that folder";
  const fs::path moving = fs::path(dir) / kMovingDir;
  if (fs::exists(moving / "model.ini", ec))
    return "; " + moving.string() +
           " holds an earlier run's model, left by a run stopped while it moved it: move its "
           "files back into " +
           dir + " (a training run into it does so first)";
  std::vector<std::string> models;  // a --compare run without a GPU has only cpu/
  for (const char* side : {"gpu", "cpu"})
    if (fs::exists(fs::path(dir) / side / "model.ini", ec))
      models.push_back((fs::path(dir) / side).string());
  if (models.empty()) return {};
  return "; " + dir + " is a --compare run's folder: " +
         (models.size() == 2
              ? "its models are in " + models[0] + " and " + models[1] + ", give one of them"
              : "its model is in " + models[0] + ", give that");
}

void restore_previous_runs() noexcept {
  for (const KeptRun& run : unfinished_runs()) {
    try {
      const fs::path out(run.dir), kept = out / kPreviousRunDir;
      std::error_code ec;
      if (!run.kept) {
        // Nothing to put back: the failed run's model files go, so that no partial model (or a
        // complete-looking one whose summary.json failed) is left; its configuration and log
        // stay for the diagnosis, its checkpoint for --resume.
        std::string left;
        for (const std::string& name : run.names) {
          if (name == "config.ini" || name == "config.json" || name == "metrics.jsonl") continue;
          if (!fs::exists(out / name, ec)) continue;
          if (!fs::remove(out / name, ec) || ec) left += " " + name;
        }
        log_warn() << "this run failed: its model files in " << run.dir << " were removed"
                   << (left.empty() ? std::string() : " but for" + left + " (could not be)")
                   << "; config.ini, config.json and metrics.jsonl stay";
        continue;
      }
      // The failed run's files go (model.ini first), so that no mix of the two runs' files is
      // left; its checkpoint too where the earlier run's comes back, else it stays (it can be
      // resumed). previous-run then comes back as a cut-short keep_previous_run would: renamed to
      // previous-run.moving and moved back from there, so that a kill on the way leaves what the
      // next run puts back. A stopped run kept beside a model returns to previous-run.
      for (const std::string& name : model_ini_first(run.names)) {
        fs::remove(out / name, ec);
        if (ec) throw Error("cannot remove " + (out / name).string() + ": " + ec.message());
      }
      if (fs::exists(kept / "checkpoint", ec)) remove_run_folder(out / "checkpoint");
      move_entry(kept, out / kMovingDir);
      move_back(out);
      log_warn() << "this run failed: the earlier run's files are back in " << run.dir
                 << (fs::exists(kept / kStoppedRunDir, ec)
                         ? " (a stopped run's checkpoint stays in " +
                               (kept / kStoppedRunDir).string() + ")"
                         : std::string());
    } catch (const std::exception& e) {
      log_warn() << "this run failed, and the earlier run's files could not all be put back in "
                 << run.dir << " (" << e.what() << "): see " << run.dir << "/" << kPreviousRunDir
                 << " and " << run.dir << "/" << kMovingDir
                 << " (the next run into it puts that back first)";
    }
  }
  unfinished_runs().clear();
}

void write_config_ini(const std::string& path, const ResolvedConfig& config,
                      const std::string& of_what, const std::string& command) {
  io::AtomicFile ini(path);
  ini.stream() << "# resolved configuration" << (of_what.empty() ? "" : " of " + of_what)
               << "; run again with " << (command.empty() ? std::string() : command + " ")
               << "--config " << path << "\n";
  for (const ConfigEntry& e : config) {
    // The config reader takes a '#' after a blank as a comment, and trims blanks at the ends.
    const bool representable =
        e.ini.find(" #") == std::string::npos && e.ini.find("\t#") == std::string::npos &&
        (e.ini.empty() || (e.ini.front() != ' ' && e.ini.back() != ' ' && e.ini.front() != '#'));
    if (!representable)
      log_warn() << path << ": the value of " << e.key << " ('" << e.ini
                 << "') cannot be read back from a config file; give --" << e.key
                 << " on the command line when running it again";
    ini.stream() << e.key << " = " << e.ini << '\n';
  }
  ini.commit();
}

void write_resolved_config(const std::string& dir, const ResolvedConfig& config,
                           const std::string& app, const std::string& command) {
  write_config_ini(dir + "/config.ini", config,
                   !app.empty() ? "an " + app + " training run" : command, command);
  io::AtomicFile json(dir + "/config.json");
  json.stream() << "{\n";
  for (std::size_t i = 0; i < config.size(); ++i)
    json.stream() << "  " << json_quote(config[i].key) << ": " << config[i].json
                  << (i + 1 < config.size() ? ",\n" : "\n");
  json.stream() << "}\n";
  json.commit();
}

ResolvedConfig read_key_values(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open file");
  ResolvedConfig out;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string t = trim_blanks(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    const auto eq = t.find('=');
    if (eq == std::string::npos)
      throw InputError(path, line_no, "expected 'key = value', got '" + t + "'");
    const std::string key = trim_blanks(t.substr(0, eq)), value = trim_blanks(t.substr(eq + 1));
    out.push_back({key, value, json_quote(value)});
  }
  return out;
}

std::optional<std::string> find_value(const ResolvedConfig& config, const std::string& key) {
  for (const ConfigEntry& e : config)
    if (e.key == key) return e.ini;
  return std::nullopt;
}

}  // namespace fk::app
