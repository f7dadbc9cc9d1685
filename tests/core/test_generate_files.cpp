// What fk-datagen writes reads back unchanged: every generator's output through the core/io
// writer it uses and the matching reader (the files the apps will be given).
#include <gtest/gtest.h>

#include <string>

#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"
#include "core/generate/sparse.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "core/io/ratings.hpp"
#include "core/io/smtx.hpp"
#include "core/io/uci.hpp"
#include "tests/core/test_generate_common.hpp"
#include "tests/test_util.hpp"

namespace fk {
namespace {

TEST(GenerateFiles, LdaCorpusThroughUciAndNpy) {
  gen::LdaCorpusSpec spec;
  spec.docs = 150;
  spec.words = 400;
  spec.topics = 6;
  spec.seed = 31;
  const gen::GeneratedCorpus c = gen::generate_lda_corpus(spec);
  test::TempDir dir;
  io::Corpus corpus{c.counts, c.vocab};
  io::write_uci(dir.file("docword.txt"), dir.file("vocab.txt"), corpus);
  io::write_npy(dir.file("true_topics.npy"), c.topics);
  const io::Corpus back = io::read_uci(dir.file("docword.txt"), dir.file("vocab.txt"));
  EXPECT_TRUE(test::same_csr(back.counts, c.counts));
  EXPECT_EQ(back.vocab, c.vocab);
  const HostDense<float> topics = io::read_npy_f32(dir.file("true_topics.npy"));
  EXPECT_EQ(topics.rows(), spec.topics);
  EXPECT_EQ(topics.storage(), c.topics.storage());
}

TEST(GenerateFiles, RatingsThroughCsv) {
  gen::RatingsSpec spec;
  spec.users = 300;
  spec.items = 200;
  spec.ratings = 9000;
  spec.min_user_ratings = 3;
  spec.step = 0.5f;
  spec.seed = 32;
  const gen::GeneratedRatings g = gen::generate_ratings(spec);
  test::TempDir dir;
  io::write_ratings_csv(dir.file("r.csv"), g.ratings);
  const io::Ratings back = io::read_ratings(dir.file("r.csv"));
  ASSERT_EQ(back.size(), g.ratings.size());
  ASSERT_EQ(back.users(), spec.users);  // every user rated something, in id order
  for (std::int64_t j = 0; j < back.size(); ++j) {
    // The reader numbers ids by first appearance; map back through the raw ids.
    ASSERT_EQ(back.user_ids[back.user[j]], g.ratings.user_ids[g.ratings.user[j]]) << j;
    ASSERT_EQ(back.item_ids[back.item[j]], g.ratings.item_ids[g.ratings.item[j]]) << j;
    ASSERT_EQ(back.rating[j], g.ratings.rating[j]) << j;
  }
}

TEST(GenerateFiles, SparseThroughMatrixMarketAndSmtx) {
  const HostCsr m =
      gen::generate_sparse(gen::parse_sparse_spec("powerlaw:rows=700,cols=500,nnz=9000,seed=33"));
  test::TempDir dir;
  io::write_matrix_market(dir.file("m.mtx"), m);
  io::write_smtx(dir.file("m.smtx"), m);
  EXPECT_TRUE(test::same_csr(io::read_matrix_market(dir.file("m.mtx")), m));
  const HostCsr pattern = io::read_smtx(dir.file("m.smtx"));
  EXPECT_EQ(pattern.row_ptr, m.row_ptr);
  EXPECT_EQ(pattern.col_idx, m.col_idx);
}

}  // namespace
}  // namespace fk
