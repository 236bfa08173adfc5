// The translation unit that builds tests/ops/pch.hpp's precompiled header
// (tests/CMakeLists.txt); it defines nothing.
