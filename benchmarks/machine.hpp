// What the benchmarks print beside their figures about the machine.
#pragma once

#include <fstream>
#include <string>

namespace bench {

/// The CPU's model name (/proc/cpuinfo), or "unknown CPU".
inline std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string l; std::getline(in, l);)
        if (l.rfind("model name", 0) == 0) return l.substr(l.find(':') + 2);
    return "unknown CPU";
}

}  // namespace bench
