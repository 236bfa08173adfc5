// Convolution geometries for the kernel tests: built from their sizes with
// the output size computed as the ops compute it, and described for INFO.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "litegraph/kernels/conv.hpp"

namespace kernel_test {
inline litegraph::kernels::conv_geometry make_geometry(
    std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t oc,
    std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw, std::int64_t dh,
    std::int64_t dw, std::int64_t pt, std::int64_t pb, std::int64_t pl, std::int64_t pr,
    std::int64_t groups) {
    using litegraph::kernels::conv_geometry;
    conv_geometry g{n, c, h, w, oc, kh, kw, 0, 0, sh, sw, dh, dw, pt, pb, pl, pr, groups};
    g.oh = conv_geometry::out_size(h, kh, dh, pt, pb, sh);
    g.ow = conv_geometry::out_size(w, kw, dw, pl, pr, sw);
    return g;
}

inline std::string describe(const litegraph::kernels::conv_geometry& g) {
    std::ostringstream s;
    s << "n" << g.n << " c" << g.c << " " << g.h << "x" << g.w << " oc" << g.oc << " k" << g.kh
      << "x" << g.kw << " s" << g.sh << "," << g.sw << " d" << g.dh << "," << g.dw << " p" << g.pt
      << "," << g.pb << "," << g.pl << "," << g.pr << " g" << g.groups << " -> " << g.oh << "x"
      << g.ow;
    return s.str();
}
}  // namespace kernel_test
