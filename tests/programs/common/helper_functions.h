// The sample-style programs' host helpers in one include, as SDK samples
// include their helper_functions.h: strings and flags, timers, images,
// located exceptions.
#ifndef PROGRAMS_COMMON_HELPER_FUNCTIONS_H
#define PROGRAMS_COMMON_HELPER_FUNCTIONS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "exception.h"
#include "helper_image.h"
#include "helper_string.h"
#include "helper_timer.h"

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

#endif  // PROGRAMS_COMMON_HELPER_FUNCTIONS_H
