// Parses a CSV buffer on the GPU, one thread per line, the way log and
// data-loading tools offload their parsing: a character-class state
// machine over an enum class, fields converted by hand-written atoi/atof
// that report errors through reference parameters, a parsed record
// returned by value, and per-column statistics gathered with atomics.
// The host finds the line starts, parses the same text with the standard
// library, and compares.
//
// nvcc-flags: -std=c++17

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace csv {

enum class CharClass : unsigned char { Digit, Sign, Dot, Exp, Comma, End, Other };

__device__ __forceinline__ CharClass classify(char c) {
  switch (c) {
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return CharClass::Digit;
    case '+':
    case '-':
      return CharClass::Sign;
    case '.':
      return CharClass::Dot;
    case 'e':
    case 'E':
      return CharClass::Exp;
    case ',':
      return CharClass::Comma;
    case '\n':
    case '\0':
      return CharClass::End;
    default:
      return CharClass::Other;
  }
}

// Reads an integer at text[pos...]; advances pos past it.
__device__ long long parseInt(const char *text, int &pos, bool &ok) {
  bool negative = false;
  if (classify(text[pos]) == CharClass::Sign) negative = text[pos++] == '-';
  if (classify(text[pos]) != CharClass::Digit) {
    ok = false;
    return 0;
  }
  long long v = 0;
  while (classify(text[pos]) == CharClass::Digit) v = v * 10 + (text[pos++] - '0');
  return negative ? -v : v;
}

__device__ double parseDouble(const char *text, int &pos, bool &ok) {
  bool negative = false;
  if (classify(text[pos]) == CharClass::Sign) negative = text[pos++] == '-';
  double mantissa = 0.0;
  int digits = 0, scale = 0;
  for (CharClass k = classify(text[pos]); k == CharClass::Digit; k = classify(text[++pos])) {
    mantissa = mantissa * 10.0 + (text[pos] - '0');
    ++digits;
  }
  if (classify(text[pos]) == CharClass::Dot) {
    ++pos;
    while (classify(text[pos]) == CharClass::Digit) {
      mantissa = mantissa * 10.0 + (text[pos++] - '0');
      --scale;
      ++digits;
    }
  }
  if (digits == 0) {
    ok = false;
    return 0.0;
  }
  if (classify(text[pos]) == CharClass::Exp) {
    ++pos;
    scale += int(parseInt(text, pos, ok));
  }
  double p10 = 1.0;
  for (int i = 0; i < (scale < 0 ? -scale : scale); ++i) p10 *= 10.0;
  double v = scale < 0 ? mantissa / p10 : mantissa * p10;
  return negative ? -v : v;
}

struct Record {
  long long id;
  double value;
  int category;
  bool ok;
};

__device__ bool expectComma(const char *text, int &pos) {
  if (classify(text[pos]) != CharClass::Comma) return false;
  ++pos;
  return true;
}

// A line is `id,value,category`.
__device__ Record parseLine(const char *text, int start) {
  Record r{};
  r.ok = true;
  int pos = start;
  r.id = parseInt(text, pos, r.ok);
  r.ok = r.ok && expectComma(text, pos);
  if (r.ok) r.value = parseDouble(text, pos, r.ok);
  r.ok = r.ok && expectComma(text, pos);
  if (r.ok) r.category = int(parseInt(text, pos, r.ok));
  r.ok = r.ok && classify(text[pos]) == CharClass::End;
  return r;
}

}  // namespace csv

constexpr int kCategories = 8;

__global__ void parseLines(const char *text, const int *lineStarts, int lines, long long *ids, double *values,
                           int *badLines, unsigned long long *categoryCounts, double *categorySums) {
  int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const csv::Record r = csv::parseLine(text, lineStarts[line]);
  if (!r.ok || r.category < 0 || r.category >= kCategories) {
    atomicAdd(badLines, 1);
    ids[line] = -1;
    return;
  }
  ids[line] = r.id;
  values[line] = r.value;
  atomicAdd(&categoryCounts[r.category], 1ull);
  atomicAdd(&categorySums[r.category], r.value);
}

int main() {
  std::ostringstream os;
  const int lines = 5000;
  for (int i = 0; i < lines; ++i) {
    if (i % 97 == 13)
      os << i << ",oops," << i % kCategories << '\n';  // a bad line
    else if (i % 5 == 0)
      os << -i << ',' << (i % 3 ? "-" : "") << i * 0.25 << "e-1," << i % kCategories << '\n';
    else
      os << i * 1000 << ',' << (i % 7) << '.' << (i % 1000) << ',' << i % kCategories << '\n';
  }
  const std::string text = os.str();
  std::vector<int> starts;
  for (size_t p = 0; p < text.size(); p = text.find('\n', p) + 1) starts.push_back(int(p));

  char *dText;
  int *dStarts, *dBad;
  long long *dIds;
  double *dValues, *dSums;
  unsigned long long *dCounts;
  cudaMalloc(&dText, text.size() + 1);
  cudaMalloc(&dStarts, lines * sizeof(int));
  cudaMalloc(&dBad, sizeof(int));
  cudaMalloc(&dIds, lines * sizeof(long long));
  cudaMalloc(&dValues, lines * sizeof(double));
  cudaMalloc(&dCounts, kCategories * sizeof(unsigned long long));
  cudaMalloc(&dSums, kCategories * sizeof(double));
  cudaMemcpy(dText, text.c_str(), text.size() + 1, cudaMemcpyHostToDevice);
  cudaMemcpy(dStarts, starts.data(), lines * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dBad, 0, sizeof(int));
  cudaMemset(dCounts, 0, kCategories * sizeof(unsigned long long));
  cudaMemset(dSums, 0, kCategories * sizeof(double));
  parseLines<<<(lines + 255) / 256, 256>>>(dText, dStarts, lines, dIds, dValues, dBad, dCounts, dSums);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;

  std::vector<long long> ids(lines);
  std::vector<double> values(lines);
  int bad = 0;
  cudaMemcpy(ids.data(), dIds, lines * sizeof(long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(values.data(), dValues, lines * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(&bad, dBad, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dText);
  cudaFree(dStarts);
  cudaFree(dBad);
  cudaFree(dIds);
  cudaFree(dValues);
  cudaFree(dCounts);
  cudaFree(dSums);

  int errors = 0, expectedBad = 0;
  for (int i = 0; i < lines; ++i) {
    const char *line = text.c_str() + starts[i];
    char *end = nullptr;
    long long id = std::strtoll(line, &end, 10);
    double v = std::strtod(end + 1, &end);
    bool lineOk = *end == ',';
    expectedBad += !lineOk;
    if (!lineOk) {
      errors += ids[i] != -1;
      continue;
    }
    double rel = (values[i] - v) / (v == 0 ? 1.0 : v);
    errors += ids[i] != id || rel > 1e-12 || rel < -1e-12;
  }
  errors += bad != expectedBad;
  printf("%d lines, %d bad (expected %d), %d errors\n", lines, bad, expectedBad, errors);
  printf(errors ? "FAIL\n" : "PASS\n");
  return errors ? 1 : 0;
}
