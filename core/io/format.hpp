#pragma once
// Input formats shared by every app's --format option.
#include <string>

namespace fk::io {

enum class InputFormat {
  kAuto,     // decide from the file's content (see detect_format)
  kUci,      // UCI bag-of-words docword.X.txt[.gz]: D, W, NNZ header lines then "doc word count"
  kMtx,      // Matrix Market (coordinate or array)
  kText,     // plain text, one document per line (LDA tokenizer)
  kRatings,  // ratings: "u::i::r::t", CSV with header, or whitespace "u i r [t]"
  kSmtx,     // DLMC .smtx pattern CSR
};

InputFormat parse_input_format(const std::string& text);  // throws fk::Error naming the value
const char* to_string(InputFormat f);
// Looks at the first lines: "%%MatrixMarket" -> kMtx; three integer header lines followed by
// triplets -> kUci; "r, c, nnz" header -> kSmtx; "::" separators, a CSV header, or 3-4 numeric
// columns -> kRatings; anything else -> kText. Throws InputError for a missing/empty file or a dir.
InputFormat detect_format(const std::string& path);

}  // namespace fk::io
