#pragma once
// Checkpoints as directories that are replaced atomically: files are written into DIR.tmp, then
// DIR is renamed to DIR.old, DIR.tmp to DIR, and DIR.old removed. A run killed at any moment
// leaves a complete DIR or a complete DIR.old, and find_checkpoint() takes whichever is complete.
// What goes inside is the app's business (arrays as .npy, scalars in state.ini).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/output.hpp"
#include "core/context.hpp"
#include "core/dense.hpp"
#include "core/io/staging_dir.hpp"

namespace fk::app {

class CheckpointWriter {
 public:
  explicit CheckpointWriter(std::string dir);  // starts a fresh DIR.tmp (removed unless committed)
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Path of a file inside the staging directory, for the app's own writers. Ctrl-C or a kill
  // before commit() removes the staging directory with the files named here.
  std::string file(const std::string& name);
  void set(const std::string& key, const std::string& value);
  // Records the run's fingerprint (model_fingerprint()) as config.KEY = VALUE, one key each.
  void set_fingerprint(const ResolvedConfig& fingerprint);
  // Writes state.ini and swaps the directory into place.
  void commit();

 private:
  std::string dir_;
  io::StagingDir stage_;  // DIR.tmp, released as it becomes DIR
  ResolvedConfig state_;
};

struct Checkpoint {
  std::string dir;       // the directory it was read from (DIR or DIR.old)
  ResolvedConfig state;  // state.ini
  std::string file(const std::string& name) const { return dir + "/" + name; }
  // The value of `key`; InputError naming state.ini when it is missing.
  std::string get(const std::string& key) const;
  // The value of `key` as a count from 0 to `max`; InputError naming state.ini and the key when it
  // is missing, not a whole number, negative or larger.
  std::int64_t get_count(const std::string& key, std::int64_t max) const;
  // The float matrix `name` (.npy), which must be rows x cols: InputError naming it and the shape
  // this data and the options need otherwise.
  HostDense<float> array(const std::string& name, std::int64_t rows, std::int64_t cols) const;
  // The same check from the file's header alone.
  void check_shape(const std::string& name, std::int64_t rows, std::int64_t cols) const;
};

// A matrix a run will read from its checkpoint, with the shape it needs.
struct CheckpointShape {
  std::string name;
  std::int64_t rows = 0, cols = 0;
};

// The complete checkpoint at `dir` (or its DIR.old twin), or nullopt when there is none.
std::optional<Checkpoint> find_checkpoint(const std::string& dir);

// The entries of a run's resolved configuration that decide the model an iteration produces:
// every entry except those that only say how or how long to run (iters, out, device, threads,
// quiet, compare, checkpoint-every, resume, sddmm, spmm, precision, ratio-spmm, product-spmm,
// repeatable) and the app's own such keys (`extra_free`, e.g. eval-every); input, test and vocab
// files by their canonical path. `implied` holds file keys' values when not given (the
// vocabulary a UCI input finds beside itself): a key given as the same file is left out, as if
// not given.
// A checkpoint can be resumed only by a run with the same fingerprint.
ResolvedConfig model_fingerprint(const ResolvedConfig& config,
                                 const std::vector<std::string>& extra_free,
                                 const ResolvedConfig& implied = {});

// Throws UsageError "--resume: the checkpoint in DIR was made with KEY = OLD, this run has KEY =
// NEW; ..." for the first entry of `fingerprint` whose config.KEY in the checkpoint differs
// (OLD is "(unset)" when the checkpoint lacks it), or for a file key (input, test, vocab) the
// checkpoint has and the run lacks (NEW is "(unset)"), unless it names the file `implied` holds
// for that key (model_fingerprint's: the run's own file, left out of its fingerprint).
void check_fingerprint(const Checkpoint& ck, const ResolvedConfig& fingerprint,
                       const ResolvedConfig& implied = {});

// How a training run takes over its --out folder, in an order that leaves an earlier run's results
// as they were until this run can go on: the files it may write or remove there (`outputs`) are
// checked against the files it reads (check_outputs_are_not_inputs) and for a folder in the way
// of one (check_no_directory_in_the_way), the folder is made, the
// checkpoint at out/checkpoint is found and checked (resume_checkpoint; the checkpoint's `arrays`
// against their shapes), then an earlier run's model and (when this run starts from the
// beginning) checkpoint move to out/previous-run until this run finishes (keep_previous_run; the
// trainer calls finish_run after its last file), what is left of an older checkpoint goes
// (remove_stale_checkpoint), and the resolved configuration is written (config.ini: a --compare
// run's own device and folder; and, for a --compare run, the whole comparison's in
// <its --out>/compare.ini). Returns the checkpoint
// to resume from, or nullopt. A checkpoint of another rounding_device (its kCheckpointDeviceKey)
// is resumed with a warning: kernels may round differently there.
struct RunStart {
  std::string out;                       // --out
  bool resume = false;                   // --resume
  ResolvedConfig fingerprint, config;    // model_fingerprint(config, ...) and the configuration
  std::string count_key, noun;           // the checkpoint's count ("iter", "pass"), its name
  int iters = 0;                         // --iters
  std::vector<std::string> outputs;      // file names the run may write or remove in `out`
  std::vector<std::string> inputs;       // the files it reads
  std::string device;                    // rounding_device(ctx): where this run computes
  std::vector<CheckpointShape> arrays;   // what a resumed run reads from the checkpoint
  std::string app;                       // "fk-lda" ...: named in config.ini (model_app)
  ResolvedConfig implied = {};           // model_fingerprint's implied files (check_fingerprint)
};
std::optional<Checkpoint> start_training_output(const RunStart& start);

// One float matrix of a checkpoint: written as FILE (.npy) inside it.
struct CheckpointArray {
  std::string file;
  HostDense<float> data;
};
// The state key that records where a checkpoint was computed: rounding_device(ctx).
inline constexpr const char* kCheckpointDeviceKey = "run.device";
// Where a run computes, as far as its rounding goes: the GPU's Context::describe(), or on the CPU
// "CPU: " and cpu_rounding_setup() (not the thread count, which changes no bit). A run resumed
// from a checkpoint of another value may differ in its last digits from an uninterrupted one.
std::string rounding_device(const Context& ctx);

// Writes the checkpoint of the fk-als, fk-sfa and fk-gap trainers at `dir`: the arrays, iter =
// `iter`, the fingerprint and `device`; then logs "checkpoint after ITER_NAME N written to DIR
// in S s".
void save_checkpoint(const std::string& dir, int iter, const std::string& iter_name,
                     const ResolvedConfig& fingerprint, const std::string& device,
                     const std::vector<CheckpointArray>& arrays);

}  // namespace fk::app
