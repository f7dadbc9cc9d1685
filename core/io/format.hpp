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

// Case-insensitive. Accepts the names to_string gives (auto, uci, mtx, text, ratings, smtx) and the
// aliases "mm"/"matrix-market" (mtx), "txt" (text), "dlmc" (smtx). Throws fk::Error naming the
// value and listing the accepted names.
InputFormat parse_input_format(const std::string& text);
const char* to_string(InputFormat f);
// Looks at the first lines (gzip or plain; at most 4 KiB of each of the first 8 non-blank lines):
// "%%MatrixMarket" -> kMtx; "r, c, nnz" followed by a line of integers starting with 0 -> kSmtx;
// three lines holding one integer each, then (if any) a line of three integers -> kUci; "::"
// separators (on the first line or most lines), or 3-4 comma- or blank-separated columns whose
// third is a number on most lines looked at (a CSV may start with a header; a damaged line among
// them goes to the ratings reader, which names it) -> kRatings; anything else -> kText. Throws
// InputError for a missing/empty file, a directory, or a pipe or device (it could not be read
// again).
InputFormat detect_format(const std::string& path);

}  // namespace fk::io
