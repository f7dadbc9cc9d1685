#pragma once
// What every app writes into its --out directory: the directory itself, metrics.jsonl (one JSON
// object per iteration, written through line by line so a killed run keeps the lines it had), and
// the resolved configuration (config.ini, readable again with --config, and config.json).
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "apps/common/options.hpp"
#include "core/memory.hpp"

namespace fk::app {

// Creates `dir` (and its parents) when missing. Throws fk::Error naming the directory when it
// cannot be created, exists as something other than a directory, or cannot be written to.
void ensure_output_dir(const std::string& dir);
// The same checks without creating anything (the nearest existing ancestor must be a writable
// directory), so that the apps can refuse a bad --out before loading data and training.
void check_output_dir(const std::string& dir);

// One JSON object built key by key: JsonObject().add("iter", 3).add("device", "gpu").str()
// gives {"iter":3,"device":"gpu"}. Non-finite doubles and empty optionals are written as null.
class JsonObject {
 public:
  JsonObject& add(const std::string& key, double value);
  JsonObject& add(const std::string& key, std::int64_t value);
  JsonObject& add(const std::string& key, int value) { return add(key, std::int64_t{value}); }
  JsonObject& add(const std::string& key, const std::string& value);
  JsonObject& add(const std::string& key, const char* value) {
    return add(key, std::string(value));
  }
  JsonObject& add(const std::string& key, bool value);
  JsonObject& add(const std::string& key, const std::optional<double>& value);
  JsonObject& add_null(const std::string& key);
  JsonObject& add_raw(const std::string& key, const std::string& json);  // value already JSON
  std::string str() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }

 private:
  std::string body_;
};

// summary.json's and compare.json's "peak_host_mib" and "peak_device_mib": `peaks`
// (core/memory.hpp) in MiB, null where unknown; the device figure is null on a CPU run.
void add_memory_peaks(JsonObject& j, const MemoryPeaks& peaks, bool on_gpu);
// The same for a run's last log line: "host 2052 MiB, GPU 1234 MiB in factorkit's buffers".
std::string describe_memory_peaks(const MemoryPeaks& peaks, bool on_gpu);
// For the kernels line, once data and plans are on the device: "; 2310 MiB on the GPU" (what
// factorkit holds there now; the peak comes in training), "" on the CPU.
std::string device_memory_note(DeviceKind device);

// metrics.jsonl: one line per iteration, flushed after each line. Lines should begin with
// "iter" (JsonObject().add("iter", n) first) so that resume() can cut the log at a checkpoint.
class MetricsWriter {
 public:
  MetricsWriter() = default;
  // Starts a fresh log at `path` (truncating an old one). Throws fk::Error naming the path.
  static MetricsWriter create(const std::string& path);
  // Continues the log of a run resumed after iteration `last_iter`: lines of later iterations (a
  // run killed after its last checkpoint wrote them) are dropped, then new lines are appended.
  static MetricsWriter resume(const std::string& path, std::int64_t last_iter);
  // resume(path, last_iter) for a run resumed from a checkpoint, create(path) otherwise.
  static MetricsWriter open(const std::string& path, bool resumed, std::int64_t last_iter) {
    return resumed ? resume(path, last_iter) : create(path);
  }
  ~MetricsWriter();
  MetricsWriter(MetricsWriter&& other) noexcept;
  MetricsWriter& operator=(MetricsWriter&& other) noexcept;
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  void write(const JsonObject& line);
  const std::string& path() const { return path_; }

 private:
  MetricsWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_ = nullptr;
};

// Writes `<dir>/config.ini` (key = value, loadable with --config) and `<dir>/config.json`
// (one object), both atomically. A training run names its app (`app`, e.g. "fk-lda") in
// config.ini's first line, which is written when the run starts and stays: model_app reads it
// for a folder whose run stopped before model.ini. Another command (`command`, e.g. "fk-lda
// infer") is named in the line that says how to run it again.
void write_resolved_config(const std::string& dir, const ResolvedConfig& config,
                           const std::string& app = "", const std::string& command = "");
// Writes `path` as config.ini is written, atomically: a first line "# resolved configuration of
// <of_what>; run again with [<command> ]--config <path>", then one key = value line per entry.
void write_config_ini(const std::string& path, const ResolvedConfig& config,
                      const std::string& of_what, const std::string& command = "");

// An earlier run's results in a training run's --out are kept until the new run completes, so
// that a run which fails (bad values in the data, a corrupt checkpoint, a full disk) or is stopped
// does not cost the model that was there. As a run starts, keep_previous_run moves an earlier
// complete model (model.ini) into `dir`/previous-run, replacing what that held, and, unless
// `keep_checkpoint` (it is being resumed), a stopped run's checkpoint: into previous-run too,
// or, where that holds a complete model, beside it into previous-run/stopped-run (a complete
// model is never replaced by a stopped run). With each go the files the run writes (`names`: the
// model's, config.ini, metrics.jsonl...), never other files in the folder (inputs may live
// there); previous-run itself belongs to the apps. A resumed run's metrics.jsonl, which it goes
// on writing, is copied. With nothing worth keeping it removes the completion markers, and an
// earlier previous-run stays. finish_run removes previous-run once the run's last file is written
// (inside a DeferredFinish, when that commits: --compare's two runs succeed or fail together).
// restore_previous_runs (run_main calls it when an app fails with an error) puts every kept
// previous-run back in place of the failed run's files (a stopped-run kept beside a model stays
// in previous-run), and where nothing was kept removes the failed run's model files (all of
// `names` but config.ini, config.json and metrics.jsonl); a run that is killed leaves them for
// the user, as the log says.
// Each file's rename is atomic, a set of them is not: both moves go through one folder,
// `dir`/previous-run.moving (kMovingDir). keep_previous_run moves the files into it, model.ini
// first, then renames it into place whole (with a stopped-run kept beside a model);
// restore_previous_runs renames previous-run to it, then moves its files back, model.ini last. So
// a kill on the way (kill -9, the OOM killer; a power cut where the file system keeps renames in
// order, as journalling ones do: nothing is synced) leaves that folder, and while files are split
// between it and `dir`, model.ini is in the folder: `dir` never looks like a complete model.
// recover_interrupted_move puts such a folder's files back (model.ini last, a stopped-run into
// previous-run) with a warning naming them: check_training_out calls it before the folder is
// read, keep_previous_run before it moves anything; with no such folder it does nothing.
inline constexpr const char* kPreviousRunDir = "previous-run";
inline constexpr const char* kStoppedRunDir = "stopped-run";  // inside previous-run
inline constexpr const char* kMovingDir = "previous-run.moving";
void recover_interrupted_move(const std::string& dir);
void keep_previous_run(const std::string& dir, const std::vector<std::string>& names,
                       bool keep_checkpoint);
void finish_run(const std::string& dir);
void restore_previous_runs() noexcept;
// Where the model is when DIR has none, for the messages of commands that read a model: "; DIR/
// previous-run holds an earlier run's model (a later run over it has not finished)" where it
// does, the same of DIR/previous-run.moving (a run stopped while it moved the model), "; DIR is a
// --compare run's folder: its models are in DIR/gpu and DIR/cpu" where those hold one (naming
// only those that do), else "".
std::string missing_model_hint(const std::string& dir);
class DeferredFinish {
 public:
  DeferredFinish();
  ~DeferredFinish();
  DeferredFinish(const DeferredFinish&) = delete;
  DeferredFinish& operator=(const DeferredFinish&) = delete;
  void commit();  // every run that finished inside the scope: its previous-run goes

 private:
  bool committed_ = false;
};
// Throws UsageError naming --out when a file this run may write or remove in `dir` (`names`) is
// one of the files it reads (`inputs`): --out pointed at a data folder (fk-datagen's writes
// vocab.txt, as fk-lda and fk-gap do) must not lose or rewrite the data. Call before anything in
// `dir` changes.
void check_outputs_are_not_inputs(const std::string& dir, const std::vector<std::string>& names,
                                  const std::vector<std::string>& inputs);
// Throws UsageError naming --out when one of `names` in `dir` is a directory (or a link to one):
// the run would fail only when it wrote that file, after training, and a folder named model.ini
// would be taken for the mark of a complete model. Call before anything in `dir` changes.
void check_no_directory_in_the_way(const std::string& dir, const std::vector<std::string>& names);
// The model.ini key that names the app whose model the folder holds ("app = fk-als").
inline constexpr const char* kModelAppKey = "app";
// The fk app whose model or run `dir` holds: the `app` key of `dir`/model.ini, or for a model.ini
// written before that key its first line ("# fk-lda model: ..." names fk-lda; fk-sfa wrote its
// model with fk-als's writer then, so "# fk-als model" with fk-sfa's item_means.npy beside it is
// fk-sfa's); without either, the app config.ini's first line names (a run that stopped before
// model.ini, its checkpoint perhaps kept). "" when none names an app. `source`, when given,
// receives the file that named it.
std::string model_app(const std::string& dir, std::string* source = nullptr);
// Throws UsageError naming --out when `dir` holds the model of an app other than `app` (model_app):
// a training run would leave that model's files mixed with its own, or remove some of them. The
// same app's model is replaced as before. Call before anything in `dir` changes.
void check_no_other_app_model(const std::string& dir, const std::string& app);
// Removes an earlier run's file that this run does not write (an optional output, such as
// fk-lda's vocab.txt), so that it is not read as this run's. Throws fk::Error when it cannot.
void remove_stale_output(const std::string& path);

// Reads a key = value file such as config.ini or a checkpoint's state file into entries (ini
// text only). Blank lines and lines starting with '#' or ';' are skipped. InputError on a line
// without '='.
ResolvedConfig read_key_values(const std::string& path);
// The value of `key`, or nullopt.
std::optional<std::string> find_value(const ResolvedConfig& config, const std::string& key);

}  // namespace fk::app
