// The ops that split over the pool in bands of the planes (core/parallel.hpp,
// plane_bands: a concat before the last two dims; nearest and bilinear
// upsampling by bands of output rows): on 2 and 3 threads the outputs of one
// thread, bit for bit, and those equal plain loops.  Shapes off the band
// edges (planes not a multiple of 16 elements, batches of 2) and large enough
// to split.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/core/parallel.hpp"
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_plane_bands_test {

namespace {

bool same_bits(const tensor& a, const tensor& b) {
    return a.shape() == b.shape() && a.bytes() == b.bytes() &&
           (a.bytes() == 0 ||
            std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.bytes())) == 0);
}

/// Out of `type` on 1, 2 and 3 threads; checks the 2 and 3 against the 1.
tensor on_threads(const std::string& type, const attr_map& a, const named_tensors& in) {
    std::vector<tensor> outs;
    for (unsigned n : {1u, 2u, 3u}) {
        thread_pool pool(n);
        outs.push_back(invoke(type, a, in, {{"Out", 1}}, &pool).get("Out"));
    }
    for (std::size_t i = 1; i < outs.size(); ++i) {
        INFO(type << " on " << i + 1 << " threads");
        CHECK(same_bits(outs[0], outs[i]));
    }
    return outs[0];
}

}  // namespace

TEST_CASE("plane bands split nearest and bilinear upsampling by output rows like one thread") {
    const auto x = test::random_tensor({1, 7, 40, 41}, 3);
    attr_map a;
    a.set("out_h", std::int32_t{80});
    a.set("out_w", std::int32_t{82});
    a.set("align_corners", false);
    a.set("interp_method", std::string("nearest"));
    const auto y = on_threads("nearest_interp_v2", a, named_tensors{}.add("X", x));
    REQUIRE(y.shape() == shape_t{1, 7, 80, 82});
    // Scale 2 both ways: output (k, l) is input (k / 2, l / 2).
    const float* xs = x.span<float>().data();
    double worst = 0;
    for (std::int64_t c = 0; c < 7; ++c)
        for (std::int64_t k = 0; k < 80; ++k)
            for (std::int64_t l = 0; l < 82; ++l)
                worst = std::max<double>(worst, std::abs(y.span<float>()[(c * 80 + k) * 82 + l] -
                                                         xs[(c * 40 + k / 2) * 41 + l / 2]));
    CHECK(worst == 0);
    // An odd size, nearest and bilinear: the rows' own arithmetic.
    a.set("out_h", std::int32_t{71});
    a.set("out_w", std::int32_t{75});
    CHECK(on_threads("nearest_interp_v2", a, named_tensors{}.add("X", x)).shape() ==
          shape_t{1, 7, 71, 75});
    a.set("interp_method", std::string("bilinear"));
    CHECK(on_threads("bilinear_interp_v2", a, named_tensors{}.add("X", x)).shape() ==
          shape_t{1, 7, 71, 75});
}

TEST_CASE("plane bands split a concat along channels like one thread") {
    // Three inputs of 2 x {8, 3, 5} x 96 x 111 (1.2 MB together), axis 1.
    std::vector<tensor> xs;
    named_tensors in;
    const std::int64_t cs[] = {8, 3, 5};
    for (int i = 0; i < 3; ++i) {
        xs.push_back(test::random_tensor({2, cs[i], 96, 111}, 10 + i));
        in.add("X", xs.back());
    }
    attr_map a;
    a.set("axis", 1);
    const auto out = on_threads("concat", a, in);
    REQUIRE(out.shape() == shape_t{2, 16, 96, 111});
    const std::int64_t plane = 96 * 111;
    double worst = 0;
    for (std::int64_t n = 0; n < 2; ++n)
        for (std::int64_t c = 0, base = 0, i = 0; c < 16; ++c) {
            if (c - base == cs[i]) base += cs[i++];
            for (std::int64_t e = 0; e < plane; ++e)
                worst = std::max<double>(
                    worst, std::abs(out.span<float>()[(n * 16 + c) * plane + e] -
                                    xs[i].span<float>()[(n * cs[i] + c - base) * plane + e]));
        }
    CHECK(worst == 0);
}

TEST_CASE("plane_bands: whole cache lines, every element once, one task when small") {
    const auto b = plane_bands::of(4, 8127, 3, 0);
    REQUIRE(b.tasks == 3);
    CHECK(b.begin(0) == 0);
    CHECK(b.end(2) == 8127);
    for (std::int64_t t = 1; t < 3; ++t) {
        CHECK(b.begin(t) % 16 == 0);
        CHECK(b.begin(t) == b.end(t - 1));
        CHECK(b.begin(t) > b.begin(t - 1));
    }
    CHECK(plane_bands::of(4, 8127, 1, 0).tasks == 1);        // one thread
    CHECK(plane_bands::of(1, 40, 3, 0).tasks == 1);          // under 16 elements a band
    CHECK(plane_bands::of(1, 1000, 2, 1 << 15).tasks == 1);  // too small to split
}

}  // namespace ops_plane_bands_test
