// Command-line and path helpers for the sample-style programs: flags of the
// form -name or --name=value, file lookup in a few folders. Host code only,
// written in the C-with-templates manner of SDK samples' helpers.
#ifndef PROGRAMS_COMMON_HELPER_STRING_H
#define PROGRAMS_COMMON_HELPER_STRING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>

#if defined(WIN32) || defined(_WIN32)
#define SAMPLE_STRNCASECMP _strnicmp
#define SAMPLE_PATH_SEPARATOR '\\'
#else
#include <strings.h>
#define SAMPLE_STRNCASECMP strncasecmp
#define SAMPLE_PATH_SEPARATOR '/'
#endif

#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

// Index of the first character after the leading dashes of arg.
inline int skipDashes(const char *arg) {
  int i = 0;
  while (arg[i] == '-') i++;
  return i;
}

// Whether arg names the flag `name` (-name, --name, --name=...).
inline bool isFlag(const char *arg, const char *name) {
  const char *body = arg + skipDashes(arg);
  size_t n = strlen(name);
  if (SAMPLE_STRNCASECMP(body, name, n) != 0) return false;
  return body[n] == '\0' || body[n] == '=';
}

inline bool checkCmdLineFlag(const int argc, const char **argv,
                             const char *name) {
  for (int i = 1; i < argc; i++) {
    if (isFlag(argv[i], name)) return true;
  }
  return false;
}

// The text after '=' of flag `name`, or NULL.
inline const char *flagValue(const int argc, const char **argv,
                             const char *name) {
  for (int i = 1; i < argc; i++) {
    if (!isFlag(argv[i], name)) continue;
    const char *eq = strchr(argv[i], '=');
    return eq ? eq + 1 : NULL;
  }
  return NULL;
}

template <typename T>
inline bool getCmdLineValue(const int argc, const char **argv,
                            const char *name, T *value) {
  const char *text = flagValue(argc, argv, name);
  if (text == NULL) return false;
  *value = static_cast<T>(atof(text));
  return true;
}

inline int getCmdLineArgumentInt(const int argc, const char **argv,
                                 const char *name) {
  int value = 0;
  return getCmdLineValue<int>(argc, argv, name, &value) ? value : 0;
}

inline float getCmdLineArgumentFloat(const int argc, const char **argv,
                                     const char *name) {
  float value = 0.0f;
  return getCmdLineValue<float>(argc, argv, name, &value) ? value : 0.0f;
}

// The first of a few folders holding `file`, joined to it; empty if none.
inline std::string findFilePath(const char *file, const char *exe) {
  static const char *folders[] = {"./", "./data/", "../data/",
                                  "../../data/"};
  std::string exeDir(exe ? exe : "");
  size_t slash = exeDir.find_last_of(SAMPLE_PATH_SEPARATOR);
  exeDir = slash == std::string::npos ? std::string() : exeDir.substr(0, slash + 1);
  for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); ++i) {
    std::string path = exeDir + folders[i] + file;
    if (FILE *f = fopen(path.c_str(), "rb")) {
      fclose(f);
      return path;
    }
  }
  return std::string();
}

#endif  // PROGRAMS_COMMON_HELPER_STRING_H
