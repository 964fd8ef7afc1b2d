// Reading and writing PGM images and comparing result buffers with a
// tolerance, for the image sample-style programs. Host code only: function
// templates over the pixel type, a converter class template with explicit
// specializations in a namespace, <algorithm> and <fstream>.
#ifndef PROGRAMS_COMMON_HELPER_IMAGE_H
#define PROGRAMS_COMMON_HELPER_IMAGE_H

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

namespace image_io {

const unsigned int kHeaderLimit = 0x40;

// Converts a stored byte to a pixel of type T, and back.
template <class T>
struct FromByte {
  T operator()(const unsigned char &b) const { return static_cast<T>(b); }
};

template <>
struct FromByte<float> {
  float operator()(const unsigned char &b) const { return b / 255.0f; }
};

template <class T>
struct ToByte {
  unsigned char operator()(const T &v) const {
    return static_cast<unsigned char>(v);
  }
};

template <>
struct ToByte<float> {
  unsigned char operator()(const float &v) const {
    float scaled = v * 255.0f;
    if (scaled < 0.0f) scaled = 0.0f;
    if (scaled > 255.0f) scaled = 255.0f;
    return static_cast<unsigned char>(scaled + 0.5f);
  }
};

// Reads a binary PGM (P5, maxval 255) into a new[] buffer.
inline bool readPgmBytes(const char *file, unsigned char **data,
                         unsigned int *w, unsigned int *h) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string magic;
  unsigned int maxval = 0;
  in >> magic >> *w >> *h >> maxval;
  if (magic != "P5" || maxval != 255 || *w == 0 || *h == 0) return false;
  in.get();
  *data = new unsigned char[(size_t)(*w) * (*h)];
  in.read(reinterpret_cast<char *>(*data), (std::streamsize)(*w) * (*h));
  return bool(in);
}

}  // namespace image_io

template <class T>
inline bool sdkLoadPGM(const char *file, T **data, unsigned int *w,
                       unsigned int *h) {
  unsigned char *bytes = NULL;
  if (!image_io::readPgmBytes(file, &bytes, w, h)) return false;
  size_t n = (size_t)(*w) * (*h);
  if (*data == NULL) *data = reinterpret_cast<T *>(malloc(sizeof(T) * n));
  std::transform(bytes, bytes + n, *data, image_io::FromByte<T>());
  delete[] bytes;
  return true;
}

template <class T>
inline bool sdkSavePGM(const char *file, const T *data, unsigned int w,
                       unsigned int h) {
  assert(data != NULL && w > 0 && h > 0);
  std::vector<unsigned char> bytes((size_t)w * h);
  std::transform(data, data + bytes.size(), bytes.begin(),
                 image_io::ToByte<T>());
  std::ofstream out(file, std::ios::binary);
  if (!out) return false;
  out << "P5\n" << w << ' ' << h << "\n255\n";
  out.write(reinterpret_cast<const char *>(bytes.data()),
            (std::streamsize)bytes.size());
  return bool(out);
}

// Whether at most `allowed` of len elements differ by more than epsilon
// (relative to the reference when it is not small).
template <class T, class S>
inline bool compareData(const T *reference, const T *data,
                        const unsigned int len, const S epsilon,
                        const unsigned int allowed) {
  assert(epsilon >= 0);
  unsigned int bad = 0;
  for (unsigned int i = 0; i < len; ++i) {
    double diff = fabs((double)reference[i] - (double)data[i]);
    double scale = fabs((double)reference[i]) > 1e-6 ? fabs((double)reference[i]) : 1.0;
    if (diff / scale > epsilon) {
      if (bad < 10) {
        std::cerr << "  [" << i << "] " << data[i] << " != " << reference[i]
                  << std::endl;
      }
      ++bad;
    }
  }
  return bad <= allowed;
}

#endif  // PROGRAMS_COMMON_HELPER_IMAGE_H
