// Utilities in the style of a GPU programming textbook's shared header:
// a HANDLE_ERROR macro around a static error reporter, a NULL-pointer
// check, a tiny bitmap holder that the chapter programs fill and save, and
// a random-number helper for the host. The textbook-style programs in
// tests/programs/cbe/ include it as "../common/book.h".
#ifndef PROGRAMS_COMMON_BOOK_H
#define PROGRAMS_COMMON_BOOK_H

#include <stdio.h>
#include <stdlib.h>

static void HandleError(cudaError_t err, const char *file, int line) {
  if (err != cudaSuccess) {
    printf("%s in %s at line %d\n", cudaGetErrorString(err), file, line);
    exit(EXIT_FAILURE);
  }
}
#define HANDLE_ERROR(err) (HandleError(err, __FILE__, __LINE__))

#define HANDLE_NULL(a)                                                         \
  {                                                                            \
    if ((a) == NULL) {                                                         \
      printf("Host memory failed in %s at line %d\n", __FILE__, __LINE__);    \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  }

#define imin(a, b) ((a) < (b) ? (a) : (b))
#define sum_squares(x) ((x) * ((x) + 1) * (2 * (x) + 1) / 6)

// An RGBA bitmap in host memory, written out as a binary PPM (alpha dropped).
struct CPUBitmap {
  unsigned char *pixels;
  int x, y;

  CPUBitmap(int width, int height) : x(width), y(height) {
    pixels = new unsigned char[width * height * 4];
  }
  ~CPUBitmap() { delete[] pixels; }

  unsigned char *get_ptr(void) const { return pixels; }
  long image_size(void) const { return (long)x * y * 4; }

  bool save_ppm(const char *path) const {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    fprintf(f, "P6\n%d %d\n255\n", x, y);
    for (long i = 0; i < (long)x * y; i++) fwrite(pixels + 4 * i, 1, 3, f);
    fclose(f);
    return true;
  }
};

// Uniform float in [0, 1) from the C library generator.
static inline float rnd_unit(void) { return (float)rand() / ((float)RAND_MAX + 1.0f); }

#endif
