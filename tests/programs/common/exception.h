// Exceptions that carry where they were thrown, for the host side of the
// sample-style programs (the shape SDK samples' helper headers have: an
// exception class template over a standard exception, thrown through a
// macro that records the file and line). Host code only.
#ifndef PROGRAMS_COMMON_EXCEPTION_H
#define PROGRAMS_COMMON_EXCEPTION_H

#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

template <class Base>
class LocatedError : public Base {
 public:
  // Builds the message "file:line: detail" and throws it.
  static void raise(const char *file, int line, const std::string &detail) {
    std::ostringstream text;
    text << file << ':' << line << ": " << detail;
    throw LocatedError<Base>(text.str());
  }

  virtual ~LocatedError() throw() {}

 private:
  explicit LocatedError(const std::string &message) : Base(message) {}
};

typedef LocatedError<std::runtime_error> SampleRuntimeError;
typedef LocatedError<std::range_error> SampleRangeError;

#define SAMPLE_THROW(detail) \
  SampleRuntimeError::raise(__FILE__, __LINE__, (detail))

// Runs body and turns any exception into an exit status, as samples' main
// functions do.
template <typename Body>
int runGuarded(Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    std::cerr << "exception: " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "unknown exception" << std::endl;
  }
  return EXIT_FAILURE;
}

#endif  // PROGRAMS_COMMON_EXCEPTION_H
