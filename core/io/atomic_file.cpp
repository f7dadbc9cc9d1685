#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace fk::io {
namespace {
std::atomic<unsigned long> g_counter{0};

// The temporary files being written, so that Ctrl-C or a kill (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
// does not leave "<path>.tmp.<pid>.<n>" behind, and the staging folders registered by
// RemovedOnSignal: the handler removes the files, then the (by then empty) folders (unlink and
// rmdir are async-signal-safe), then ends the process by the signal's default action. Slots are
// claimed with an atomic flag; a path that finds none is simply not cleaned up on a signal.
constexpr int kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
std::atomic<int> g_slot_state[kSlots];  // 0 free, 1 being written, 2 holds a file, 3 a folder
char g_slot_path[kSlots][kPathBytes];
std::atomic<bool> g_handlers_installed{false};

// set_signal_note's text, in two buffers: a new note is written into the one not shown, then
// shown, so the handler never reads a half-written note.
constexpr std::size_t kNoteBytes = 1024;
char g_note[2][kNoteBytes];
std::size_t g_note_size[2] = {0, 0};
std::atomic<int> g_note_shown{0};

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_slot_state[i].load() == 2) ::unlink(g_slot_path[i]);
  for (int i = 0; i < kSlots; ++i)
    if (g_slot_state[i].load() == 3) ::rmdir(g_slot_path[i]);
  const int shown = g_note_shown.load();
  if (g_note_size[shown] > 0) {
    const ssize_t written = ::write(STDERR_FILENO, g_note[shown], g_note_size[shown]);
    (void)written;  // nothing to do about a failed write here
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers_once() {
  if (g_handlers_installed.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) {
    struct sigaction old {};
    // Only where nobody else handles the signal (a test harness, a debugger may).
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    // A file past ulimit -f: the write fails with EFBIG instead, and the writer reports it
    // ("write error on FILE (File too large)") and removes its temporary.
    std::signal(sig, sig == SIGXFSZ ? SIG_IGN : remove_temporaries_and_reraise);
  }
}

int claim_slot(const std::string& path, bool directory = false) {
  if (path.size() >= kPathBytes) return -1;
  install_handlers_once();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slot_state[i].compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slot_path[i], path.c_str(), path.size() + 1);
      g_slot_state[i].store(directory ? 3 : 2);
      return i;
    }
  }
  return -1;
}

void release_slot(int slot) {
  if (slot >= 0) g_slot_state[slot].store(0);
}
// "<path><tag>", a temporary's or probe's name beside `path`, with the last component cut to the
// folder's longest name: a file name of legal length near the limit would otherwise get no
// temporary (ENAMETOOLONG). The pid and counter in the tag keep shortened names apart; the cut
// keeps UTF-8 characters whole. A name that is itself too long is left so, and fails as it will.
std::string beside(const std::string& path, const std::string& tag) {
  const std::size_t slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  const long limit = ::pathconf(base == 0 ? "." : path.substr(0, base).c_str(), _PC_NAME_MAX);
  const std::size_t name_max = limit > 0 ? static_cast<std::size_t>(limit) : 255;
  const std::size_t name = path.size() - base;
  if (name + tag.size() <= name_max || name > name_max || tag.size() >= name_max) return path + tag;
  std::size_t cut = base + (name_max - tag.size());
  while (cut > base && (static_cast<unsigned char>(path[cut]) & 0xC0) == 0x80) --cut;
  return path.substr(0, cut) + tag;
}

// Where a write to `path` lands. What the path itself names (the kernel resolves it, /proc's fd
// links included: /dev/stdout on a pipe or a redirected file) decides: an existing device, pipe
// or socket, or a path under /dev/fd, /proc/self/fd or /dev/std*, sets `node` and is written in
// place under the given name, since renaming a file over it would replace the node (as root,
// even /dev/stdout's) or, for a redirected stdout, the file the shell opened. Otherwise a
// symbolic link's target is written (the link stays a link, as with any editor's save).
std::string write_target(const std::string& path, bool* node = nullptr) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows links, as open() will
  const bool descriptor = path.rfind("/dev/fd/", 0) == 0 || path.rfind("/proc/self/fd/", 0) == 0 ||
                          path == "/dev/stdout" || path == "/dev/stderr";
  const bool in_place =
      fs::exists(st) && ((!fs::is_regular_file(st) && !fs::is_directory(st)) || descriptor);
  if (node) *node = in_place;
  if (in_place) return path;
  std::string target = path;
  for (int hops = 0; fs::is_symlink(target, ec); ++hops) {
    if (hops == 40) throw Error("cannot write " + path + ": too many levels of symbolic links");
    const fs::path link = fs::read_symlink(target, ec);
    if (ec) throw Error("cannot write " + path + ": cannot read the link (" + ec.message() + ")");
    target = (link.is_absolute() ? link : fs::path(target).parent_path() / link).string();
  }
  return target;
}

}  // namespace

void set_signal_note(const std::string& text) {
  const int next = 1 - g_note_shown.load();
  const std::size_t n = std::min(text.size(), kNoteBytes);
  std::memcpy(g_note[next], text.data(), n);
  g_note_size[next] = n;
  g_note_shown.store(next);
}

RemovedOnSignal::RemovedOnSignal(const std::string& path, bool directory)
    : slot_(claim_slot(path, directory)) {}

RemovedOnSignal::~RemovedOnSignal() { release_slot(slot_); }

void remove_dead_leftovers(const std::string& dir, const std::string& prefix) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::size_t at = prefix.size();
    long pid = 0;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && pid < 1L << 40)
      pid = pid * 10 + (name[at++] - '0');
    if (at == prefix.size() || at + 1 >= name.size() || name[at] != '.') continue;
    if (pid <= 0 || pid == ::getpid() || pid > INT_MAX) continue;
    // ESRCH: no such process. EPERM: one that exists, of another user.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code removed;
    fs::remove_all(it->path(), removed);
  }
}

void check_output_file(const std::string& given) {
  namespace fs = std::filesystem;
  if (given.empty()) throw Error("cannot write a file with an empty name");
  bool node = false;
  const std::string path = write_target(given, &node);
  if (node) {  // written in place: only the node's own permission matters
    if (::access(path.c_str(), W_OK) != 0)
      throw Error("cannot write " + given + " (" + std::strerror(errno) + ")");
    return;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error("cannot write " + path + ": it is a directory");
  fs::path parent = fs::path(path).parent_path();
  // The folder is made when missing (its nearest existing ancestor must be writable then).
  while (!parent.empty() && !fs::exists(parent, ec) && parent != parent.parent_path())
    parent = parent.parent_path();
  if (parent.empty()) parent = ".";  // a relative path's missing folders end at the current one
  if (!fs::is_directory(parent, ec))
    throw Error("cannot write " + path + ": " + parent.string() + " is not a directory");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw Error("cannot write " + path + ": " + parent.string() + " is not writable (" +
                std::strerror(errno) + ")");
  // access() says yes where creating a file still fails (/proc, a read-only mount seen as root):
  // create and remove a probe beside the file, as its temporary will be made.
  if (parent == fs::path(path).parent_path() || fs::path(path).parent_path().empty()) {
    const std::string probe = beside(path, ".probe." + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
      throw Error("cannot write " + path + ": cannot create a file beside it (" +
                  std::strerror(errno) + ")");
    ::close(fd);
    ::unlink(probe.c_str());
  }
}

AtomicFile::AtomicFile(const std::string& path, bool binary)
    : path_(path) {
  if (path.empty()) throw Error("cannot write a file with an empty name");
  target_ = write_target(path, &in_place_);
  std::ios::openmode mode = std::ios::out | std::ios::trunc;
  if (binary) mode |= std::ios::binary;
  if (in_place_) {
    // Appended, not truncated: a stdout the shell redirected with >> keeps what it held.
    out_.open(target_, (mode & ~std::ios::trunc) | std::ios::app);
    if (!out_) throw Error("cannot write " + path_ + " (" + std::strerror(errno) + ")");
    return;
  }
  const std::size_t slash = target_.rfind('/');
  remove_dead_leftovers(slash == std::string::npos ? "." : target_.substr(0, slash + 1),
                        target_.substr(slash + 1) + ".tmp.");
  tmp_path_ =
      beside(target_, ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_counter++));
  slot_ = claim_slot(tmp_path_);
  out_.open(tmp_path_, mode);
  if (!out_) {
    release_slot(slot_);
    throw Error("cannot write " + path_ + ": cannot create " + tmp_path_ + " (" +
                std::strerror(errno) + ")");
  }
}

AtomicFile::~AtomicFile() {
  if (committed_ || in_place_) return;
  out_.close();
  std::remove(tmp_path_.c_str());  // best effort; nothing useful to do if it fails
  release_slot(slot_);
}

void AtomicFile::commit() {
  if (committed_) throw Error("AtomicFile::commit called twice for " + path_);
  out_.flush();
  const bool write_ok = static_cast<bool>(out_);
  out_.close();
  if (in_place_) {
    committed_ = true;
    if (!write_ok || out_.fail())
      throw Error("write error on " + path_ + " (" + std::strerror(errno) + ")");
    return;
  }
  if (!write_ok || out_.fail()) {
    const int err = errno;
    std::remove(tmp_path_.c_str());
    committed_ = true;  // nothing left to clean up
    release_slot(slot_);
    throw Error("write error on " + path_ + " (" + std::strerror(err) +
                "); the file was not changed");
  }
  if (std::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_path_.c_str());
    committed_ = true;
    release_slot(slot_);
    throw Error("cannot rename " + tmp_path_ + " to " + path_ + " (" + std::strerror(err) + ")");
  }
  committed_ = true;
  release_slot(slot_);
}

}  // namespace fk::io
