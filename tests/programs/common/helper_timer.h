// Wall-clock timers behind an abstract interface, created and destroyed
// through free functions that take a pointer to the interface pointer, as
// SDK samples' timing helpers are. Host code only: classes with virtual
// functions, out-of-class member definitions, new/delete.
#ifndef PROGRAMS_COMMON_HELPER_TIMER_H
#define PROGRAMS_COMMON_HELPER_TIMER_H

#include <sys/time.h>
#include <cstddef>

class StopWatchInterface {
 public:
  StopWatchInterface() {}
  virtual ~StopWatchInterface() {}
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  // Milliseconds since start(), plus earlier runs since reset().
  virtual float getTime() = 0;
  virtual float getAverageTime() = 0;
};

class StopWatchPosix : public StopWatchInterface {
 public:
  StopWatchPosix() : running(false), runs(0), total(0.0f), last(0.0f) {}
  virtual ~StopWatchPosix() {}
  void start() override;
  void stop() override;
  void reset() override;
  float getTime() override;
  float getAverageTime() override {
    return runs > 0 ? total / runs : 0.0f;
  }

 private:
  float sinceStart() const;

  struct timeval begin;
  bool running;
  int runs;
  float total;
  float last;
};

inline void StopWatchPosix::start() {
  gettimeofday(&begin, NULL);
  running = true;
}

inline void StopWatchPosix::stop() {
  last = sinceStart();
  total += last;
  running = false;
  ++runs;
}

inline void StopWatchPosix::reset() {
  total = last = 0.0f;
  runs = 0;
  if (running) gettimeofday(&begin, NULL);
}

inline float StopWatchPosix::getTime() {
  return running ? total + sinceStart() : total;
}

inline float StopWatchPosix::sinceStart() const {
  struct timeval now;
  gettimeofday(&now, NULL);
  return static_cast<float>(1000.0 * (now.tv_sec - begin.tv_sec) +
                            0.001 * (now.tv_usec - begin.tv_usec));
}

inline bool sdkCreateTimer(StopWatchInterface **timer) {
  *timer = new StopWatchPosix();
  return *timer != NULL;
}

inline bool sdkDeleteTimer(StopWatchInterface **timer) {
  delete *timer;
  *timer = NULL;
  return true;
}

inline bool sdkStartTimer(StopWatchInterface **timer) {
  if (*timer) (*timer)->start();
  return *timer != NULL;
}

inline bool sdkStopTimer(StopWatchInterface **timer) {
  if (*timer) (*timer)->stop();
  return *timer != NULL;
}

inline float sdkGetTimerValue(StopWatchInterface **timer) {
  return *timer ? (*timer)->getTime() : 0.0f;
}

#endif  // PROGRAMS_COMMON_HELPER_TIMER_H
