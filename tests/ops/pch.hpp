// The precompiled header of the op tests (test_ops, tests/CMakeLists.txt):
// what every tests/ops/*.cpp includes.  Each test still includes what it
// uses, so it also compiles without it.
#pragma once

#include <doctest/doctest.h>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"
