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

// What a checkpoint records of the content of the files a run trains and scores on (--input,
// --test), so that --resume can tell an edited file from the one the checkpoint's model was
// trained on: the path alone (the fingerprint) does not change when a value in the file does.
//
// The content is identified by its size and a 64-bit hash of all its bytes (content_hash64).
// Not the modification time: copying, touching or checking out the same bytes changes it (a
// false refusal), and a tool that keeps it (rsync -t, cp -p of another version) would hide an
// edit. Not a sample of the first and last MiB either: the case this guards against is one value
// edited in the middle of the file, which keeps the size and every sampled byte. Reading the whole
// file again costs one sequential pass at memory or disk speed, once per run (the identity is
// taken as the run starts, not at each checkpoint), and far less than parsing it did; a run that
// neither resumes nor writes checkpoints skips it.
// Not recorded, and not checked: gen: inputs (no file; the spec in the fingerprint, seed= among
// its keys, identifies what is generated) and pipes or devices (they cannot be read again).
// --vocab is not among them: it only names the words (top_words.txt), no number the checkpoint
// holds depends on it, and the resumed run writes its outputs with the vocabulary it reads.
struct InputContent {
  std::string key;         // the option: "input", "test"
  std::string path;        // the file, as the fingerprint names it
  std::uintmax_t bytes = 0;
  std::string hash;        // content_hash64 as 16 hex digits
};
using InputContents = std::vector<InputContent>;

// The 64-bit hash of the bytes of the regular file `path` as 16 hex digits (not cryptographic:
// it tells accidental edits apart, every change of a single 8-byte word for certain), and the
// number of bytes it read in `bytes` when given. Throws InputError naming the file when it cannot
// be read.
std::string content_hash64(const std::string& path, std::uintmax_t* bytes = nullptr);

// The content of the input and test files `fingerprint` names (model_fingerprint's entries),
// when `needed` (the run resumes or writes checkpoints); empty otherwise. Logs how long it took
// when that was more than a second (a multi-GB input).
InputContents input_contents(const ResolvedConfig& fingerprint, bool needed);

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
  // Records each file's content (input_contents()) as content.KEY.bytes and content.KEY.hash.
  void set_input_contents(const InputContents& contents);
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

// --resume's check that the run's input and test files hold what the checkpoint's model was
// trained on: UsageError (as the other refusals to resume) naming the file, its option and what
// changed (its size, or its content at the same size), when a file's content differs from the one
// the checkpoint recorded. A checkpoint that records no content (one written before checkpoints
// did) or a file that cannot be checked (a pipe) resumes as before, with one warning line saying
// which files could not be checked. `contents` is input_contents(fingerprint, true).
void check_input_contents(const Checkpoint& ck, const ResolvedConfig& fingerprint,
                          const InputContents& contents);

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
// is resumed with a warning: kernels may round differently there. The checkpoint must have been
// trained on the same input content (check_input_contents, right after check_fingerprint).
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
  InputContents contents = {};           // input_contents(fingerprint, ...): what the files hold
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
// `iter`, the fingerprint, the input files' content (as the run started) and `device`; then
// logs "checkpoint after ITER_NAME N written to DIR in S s".
void save_checkpoint(const std::string& dir, int iter, const std::string& iter_name,
                     const ResolvedConfig& fingerprint, const InputContents& contents,
                     const std::string& device, const std::vector<CheckpointArray>& arrays);

}  // namespace fk::app
