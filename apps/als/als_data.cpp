#include "apps/als/als_data.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "apps/common/gen_spec.hpp"
#include "apps/common/options.hpp"
#include "core/error.hpp"
#include "core/generate/ratings.hpp"
#include "core/io/matrix_market.hpp"
#include "core/log.hpp"
#include "core/random.hpp"

namespace fk::als {
namespace {

// Independent random streams of one seed: the split here, the initial factors in the trainer.
constexpr std::uint64_t kSplitStream = 0x5b1170;

gen::RatingsSpec parse_gen_spec(const std::string& text) {
  const app::GenSpecText spec = app::split_gen_spec(text);
  // An unknown name, like a bad key below, is a bad --input.
  gen::RatingsSpec s = spec.checked([&] { return gen::ratings_preset(spec.name); });
  // fk-datagen ratings' option names.
  for (const auto& [key, v] : spec.values) {
    if (key == "users")
      s.users = spec.integer(key, v);
    else if (key == "items")
      s.items = spec.integer(key, v);
    else if (key == "ratings")
      s.ratings = spec.integer(key, v);
    else if (key == "rank")
      s.rank = static_cast<int>(spec.integer(key, v, INT_MAX));
    else if (key == "noise")
      s.noise = v;
    else if (key == "user-exponent")
      s.user_exponent = v;
    else if (key == "item-exponent")
      s.item_exponent = v;
    else if (key == "min-rating")
      s.min_rating = static_cast<float>(v);
    else if (key == "max-rating")
      s.max_rating = static_cast<float>(v);
    else if (key == "step")
      s.step = static_cast<float>(v);
    else if (key == "min-user-ratings")
      s.min_user_ratings = spec.integer(key, v);
    else if (key == "seed")
      s.seed = static_cast<std::uint64_t>(spec.integer(key, v));
    else
      spec.unknown(key,
                   "users, items, ratings, rank, noise, user-exponent, item-exponent, min-rating, "
                   "max-rating, step, min-user-ratings, seed");
  }
  // A value out of range is a bad --input (exit 2), as a bad key is; the memory the data needs is
  // the generator's runtime check.
  spec.checked([&] { gen::check_spec_values(s); });
  return s;
}

// Takes the file's COO: its rows, columns and values become the ratings' (moved, not copied).
io::Ratings ratings_from_coo(HostCoo&& coo) {
  io::Ratings r;
  r.user_ids.reserve(static_cast<std::size_t>(coo.rows));
  r.item_ids.reserve(static_cast<std::size_t>(coo.cols));
  for (std::int64_t u = 0; u < coo.rows; ++u) r.user_ids.push_back(std::to_string(u + 1));
  for (std::int64_t i = 0; i < coo.cols; ++i) r.item_ids.push_back(std::to_string(i + 1));
  r.user = std::move(coo.row);
  r.item = std::move(coo.col);
  r.rating = std::move(coo.val);
  return r;
}

// Adds the raw ids of `extra` to `ids` (new ones at the end) and returns each extra index's new
// index.
std::vector<std::int32_t> merge_ids(std::vector<std::string>& ids,
                                    const std::vector<std::string>& extra) {
  std::unordered_map<std::string, std::int32_t> index;
  index.reserve(ids.size() + extra.size());
  for (std::size_t k = 0; k < ids.size(); ++k) index.emplace(ids[k], static_cast<std::int32_t>(k));
  std::vector<std::int32_t> out(extra.size());
  for (std::size_t k = 0; k < extra.size(); ++k) {
    const auto [it, fresh] = index.emplace(extra[k], static_cast<std::int32_t>(ids.size()));
    if (fresh) ids.push_back(extra[k]);
    out[k] = it->second;
  }
  return out;
}

// users x items CSR of the ratings j whose is_test[j] is `test` (an empty mask: none are), in
// rating order within a user, straight from the ratings: two HostCoo beside them took 16 bytes a
// rating more (netflix: 1.6 GB) for the same matrices.
HostCsr split_csr(const io::Ratings& r, const std::vector<char>& is_test, bool test) {
  return csr_by_rows(
      r.users(), r.items(), r.size(), [&](std::int64_t j) { return r.user[j]; }, r.item.data(),
      r.rating.data(), [&](std::int64_t j) { return (!is_test.empty() && is_test[j]) == test; });
}

}  // namespace

io::Ratings load_ratings(const std::string& path, io::InputFormat format,
                         std::vector<float>* truth, const io::RatingCheck& check) {
  if (path.rfind("gen:", 0) == 0) {
    const gen::RatingsSpec spec = parse_gen_spec(path.substr(4));
    gen::GeneratedRatings g = gen::generate_ratings(spec);
    if (truth) {
      const io::Ratings& r = g.ratings;
      truth->resize(static_cast<std::size_t>(r.size()));
      const int rank = static_cast<int>(g.user_factors.cols());
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < r.size(); ++j) {
        const std::int32_t u = r.user[j], i = r.item[j];
        double s = double(g.global_mean) + g.user_bias[u] + g.item_bias[i];
        for (int c = 0; c < rank; ++c) s += double(g.user_factors(u, c)) * g.item_factors(i, c);
        (*truth)[j] = static_cast<float>(s);
      }
    }
    return std::move(g.ratings);
  }
  const bool detected = format == io::InputFormat::kAuto;
  if (detected) format = io::detect_format(path);
  switch (format) {
    case io::InputFormat::kRatings:
      return io::read_ratings(path, check);
    case io::InputFormat::kMtx: {
      io::Ratings r = ratings_from_coo(io::read_matrix_market_coo(path));
      // As the ratings reader says of a file without ratings (this ended in "no training ratings
      // left after the split", without the file).
      if (r.size() == 0)
        throw InputError(path, 0, "no ratings (the Matrix Market file has no entries)");
      if (check)
        for (std::int64_t j = 0; j < r.size(); ++j)
          if (const std::string why = check(r.rating[j]); !why.empty())
            throw InputError(path, 0,
                             "entry " + std::to_string(j + 1) + " (row " + r.user_ids[r.user[j]] +
                                 ", column " + r.item_ids[r.item[j]] + "): " + why);
      return r;
    }
    case io::InputFormat::kText:
      // Detection calls a ratings file "text" when most of its first lines are not ratings-shaped
      // (one bad line among them no longer does). No other text is ours to read here, so read it
      // as ratings: the error then names the line that is wrong.
      if (detected) return io::read_ratings(path, check);
      [[fallthrough]];
    default:
      throw InputError(path, 0,
                       std::string("expected ratings (u::i::r, CSV, u i r) or Matrix Market users "
                                   "x items; ") +
                           (detected ? std::string("this file looks like format '") +
                                           io::to_string(format) + "'"
                                     : std::string("--format ") + io::to_string(format) +
                                           " is neither"));
  }
}

std::vector<char> holdout_mask(std::int64_t n, double frac, std::uint64_t seed) {
  std::vector<char> mask(static_cast<std::size_t>(n), 0);
  std::int64_t want = std::llround(frac * static_cast<double>(n));
  // Selection sampling (Knuth's Algorithm S): exactly `want` of n, each subset equally likely,
  // one pass, no index array.
  Rng rng = Rng(seed).split(kSplitStream);
  for (std::int64_t j = 0; j < n && want > 0; ++j) {
    if (static_cast<double>(n - j) * rng.uniform() < static_cast<double>(want)) {
      mask[j] = 1;
      --want;
    }
  }
  return mask;
}

std::vector<char> leave_k_out_mask(const io::Ratings& r, int k, std::uint64_t seed) {
  const std::int64_t n = r.size(), users = r.users();
  std::vector<std::int64_t> start(static_cast<std::size_t>(users) + 1, 0);
  for (std::int32_t u : r.user) ++start[u + 1];
  for (std::int64_t u = 0; u < users; ++u) start[u + 1] += start[u];
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> pos(start.begin(), start.end() - 1);
    for (std::int64_t j = 0; j < n; ++j) idx[pos[r.user[j]]++] = j;  // rating order within a user
  }
  std::vector<char> mask(static_cast<std::size_t>(n), 0);
  const Rng base = Rng(seed).split(kSplitStream + 1);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t u = 0; u < users; ++u) {
    const std::int64_t len = start[u + 1] - start[u];
    if (len <= k) continue;
    Rng rng = base.split(static_cast<std::uint64_t>(u));
    std::int64_t want = k;
    for (std::int64_t t = 0; t < len && want > 0; ++t)
      if (static_cast<double>(len - t) * rng.uniform() < static_cast<double>(want)) {
        mask[idx[start[u] + t]] = 1;
        --want;
      }
  }
  return mask;
}

AlsData build_als_data(const io::Ratings& r, const std::vector<char>& is_test,
                       const std::vector<float>* truth) {
  const std::int64_t n = r.size();
  FK_CHECK(is_test.empty() || static_cast<std::int64_t>(is_test.size()) == n,
           "split mask of the wrong length");
  FK_CHECK(!truth || static_cast<std::int64_t>(truth->size()) == n,
           "true predictions of the wrong length");
  AlsData d;
  d.user_ids = r.user_ids;
  d.item_ids = r.item_ids;
  double sum = 0, true_sq_train = 0, true_sq_test = 0;
  std::int64_t n_train = 0;
  float lo = 0, hi = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const bool t = !is_test.empty() && is_test[j];
    if (!t) {
      sum += r.rating[j];
      lo = n_train == 0 ? r.rating[j] : std::min(lo, r.rating[j]);
      hi = n_train == 0 ? r.rating[j] : std::max(hi, r.rating[j]);
      ++n_train;
    }
    if (truth) {
      const double e = double(r.rating[j]) - (*truth)[j];
      (t ? true_sq_test : true_sq_train) += e * e;
    }
  }
  if (n_train == 0) throw Error("no training ratings left after the split");
  d.global_mean = sum / static_cast<double>(n_train);
  d.rating_min = lo;
  d.rating_max = hi;
  if (truth) {
    d.true_train_rmse = std::sqrt(true_sq_train / static_cast<double>(n_train));
    if (n_train < n) d.true_test_rmse = std::sqrt(true_sq_test / static_cast<double>(n - n_train));
  }
  d.train = split_csr(r, is_test, false);
  sort_columns(d.train);
  d.train_t = transpose(d.train.view());
  sort_columns(d.train_t);
  d.test = split_csr(r, is_test, true);
  sort_columns(d.test);

  // Unseen: test users/items without a training rating.
  std::vector<char> user_seen(static_cast<std::size_t>(d.users()), 0),
      item_seen(static_cast<std::size_t>(d.items()), 0);
  std::vector<char> user_counted(user_seen.size(), 0), item_counted(item_seen.size(), 0);
  for (std::int64_t u = 0; u < d.users(); ++u)
    user_seen[u] = d.train.row_ptr[u + 1] > d.train.row_ptr[u];
  for (std::int64_t i = 0; i < d.items(); ++i)
    item_seen[i] = d.train_t.row_ptr[i + 1] > d.train_t.row_ptr[i];
  for (std::int64_t u = 0; u < d.test.rows; ++u)
    for (std::int64_t j = d.test.row_ptr[u]; j < d.test.row_ptr[u + 1]; ++j) {
      const std::int32_t i = d.test.col_idx[j];
      if (!user_seen[u] && !user_counted[u]) {
        user_counted[u] = 1;
        ++d.unseen_test_users;
      }
      if (!item_seen[i] && !item_counted[i]) {
        item_counted[i] = 1;
        ++d.unseen_test_items;
      }
      if (!user_seen[u] || !item_seen[i]) ++d.unseen_test_ratings;
    }
  return d;
}

AlsData prepare_als_data(const AlsOptions& opt, const std::string& input, io::InputFormat format,
                         std::uint64_t seed) {
  std::vector<float> truth;
  const bool generated = input.rfind("gen:", 0) == 0;
  // Implicit mode's confidences 1 + alpha*r need r >= 0 and alpha*r within what single precision
  // can solve (kMaxConfidenceSlope): checked as each file is read, so that the error names the
  // file and the line.
  io::RatingCheck check;
  if (opt.implicit)
    check = [alpha = opt.alpha](float v) {
      if (!(v >= 0))
        return "implicit mode needs ratings >= 0 (confidence 1 + alpha*r), found " +
               app::format_double(v);
      if (alpha * v > kMaxConfidenceSlope)
        return "implicit mode needs alpha*r at most 1e5 (single precision loses the unobserved "
               "pairs beside larger confidences), found r = " +
               app::format_double(v) + " with --alpha " + app::format_double(alpha) +
               ": lower --alpha or rescale the ratings, e.g. r = log(1 + count)";
      return std::string();
    };
  io::Ratings r = load_ratings(input, format, generated ? &truth : nullptr, check);
  std::vector<char> is_test;
  std::string split;
  if (!opt.test.empty()) {
    if (generated) truth.clear();  // the test file has no generating model
    const io::Ratings t = load_ratings(opt.test, format, nullptr, check);
    const std::vector<std::int32_t> umap = merge_ids(r.user_ids, t.user_ids);
    const std::vector<std::int32_t> imap = merge_ids(r.item_ids, t.item_ids);
    is_test.assign(static_cast<std::size_t>(r.size()), 0);
    for (std::int64_t j = 0; j < t.size(); ++j) {
      r.user.push_back(umap[t.user[j]]);
      r.item.push_back(imap[t.item[j]]);
      r.rating.push_back(t.rating[j]);
      is_test.push_back(1);
    }
    split = "test file " + opt.test;
  } else if (opt.leave_k_out > 0) {
    is_test = leave_k_out_mask(r, opt.leave_k_out, seed);
    split = "leave-" + std::to_string(opt.leave_k_out) + "-out per user";
    // Only users with more than k ratings give any: where none has, the run had no test_rmse (or
    // ranking metrics) and said nothing, as --holdout-frac below 0.5/n used to.
    if (std::find(is_test.begin(), is_test.end(), 1) == is_test.end())
      log_warn() << "--leave-k-out " << opt.leave_k_out << " holds out none of the " << r.size()
                 << " ratings of " << input << ": no user has more than " << opt.leave_k_out
                 << " ratings, so there is no test set (give a smaller N)";
  } else if (opt.holdout_frac > 0) {
    // The mask holds out round(frac * n) ratings: all of them from 1 - 0.5/n on, which had ended
    // in "no training ratings left after the split", without the option; none below 0.5/n, a
    // run without test_rmse that looked like any other.
    const std::int64_t n = r.size();
    const double all_from = 1.0 - 0.5 / static_cast<double>(n);
    if (opt.holdout_frac >= all_from)
      app::usage_fail("holdout-frac",
                      app::format_double(opt.holdout_frac) + " of the " + std::to_string(n) +
                          " ratings of " + input +
                          " holds out all of them: none would be left to train on (give less than " +
                          app::format_double(all_from) + ")");
    if (std::llround(opt.holdout_frac * static_cast<double>(n)) == 0)
      log_warn() << "--holdout-frac " << app::format_double(opt.holdout_frac) << " of the " << n
                 << " ratings of " << input << " holds out none of them: no test_rmse (give at least "
                 << app::format_double(0.5 / static_cast<double>(n)) << ", or 0 for no test set)";
    is_test = holdout_mask(n, opt.holdout_frac, seed);
    split = "random hold-out " + app::format_double(opt.holdout_frac);
  } else {
    split = "no test set";
  }
  AlsData d = build_als_data(r, is_test, truth.empty() ? nullptr : &truth);
  d.source = input;
  log_info() << "data: " << input << ": " << d.users() << " users x " << d.items() << " items, "
             << d.train.nnz() << " training ratings (mean " << d.global_mean << "), "
             << d.test.nnz() << " test ratings (" << split << ")";
  if (d.unseen_test_ratings > 0)
    log_info() << "test: " << d.unseen_test_users << " users and " << d.unseen_test_items
               << " items have no training rating; their " << d.unseen_test_ratings
               << " test ratings have no learned factors to use (the summary says how they count)";
  if (!opt.test.empty()) {
    // A test file may repeat training ratings (the same file twice, or an overlapping export):
    // their errors are not out of sample. Both matrices have sorted rows: merge each user's.
    std::int64_t shared = 0;
    for (std::int64_t u = 0; u < d.test.rows; ++u) {
      std::int64_t a = d.train.row_ptr[u], b = d.test.row_ptr[u];
      while (a < d.train.row_ptr[u + 1] && b < d.test.row_ptr[u + 1]) {
        const std::int32_t ca = d.train.col_idx[a], cb = d.test.col_idx[b];
        shared += ca == cb;
        a += ca <= cb;
        b += cb <= ca;
      }
    }
    if (shared > 0)
      log_warn() << opt.test << ": " << shared << " of its " << d.test.nnz()
                 << " ratings rate a (user, item) pair the training data rates too: their test "
                    "errors are not out of sample";
  }
  if (d.true_test_rmse)
    log_info() << "generating model: RMSE " << *d.true_train_rmse << " on the training and "
               << *d.true_test_rmse << " on the test ratings";
  return d;
}

}  // namespace fk::als
