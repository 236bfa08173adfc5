// flip against a plain-loop baseline: every subset of the dims (also given as
// negative axes), ranks 0 to 4, empty dims, several dtypes (float32, int64,
// bool, float16 as bytes); out-of-range and repeated axes are named.
#include <algorithm>
#include <cstring>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_flip_test {

namespace {
// Plain baseline: Out at multi-index i is X at i with i[d] -> s[d] - 1 - i[d]
// for each flipped d; compared as raw element bytes.
std::vector<std::byte> baseline(const tensor& x, const std::vector<bool>& f) {
    const auto& s = x.shape();
    const auto es = size_of(x.type());
    const auto n = x.numel();
    std::vector<std::byte> out(static_cast<std::size_t>(n) * es);
    const auto* in = x.data();
    for (std::int64_t e = 0; e < n; ++e) {
        std::vector<std::int64_t> idx(s.size());
        std::int64_t rem = e;
        for (std::size_t d = s.size(); d-- > 0;) {
            idx[d] = rem % s[d];
            rem /= s[d];
        }
        std::int64_t src = 0;
        for (std::size_t d = 0; d < s.size(); ++d)
            src = src * s[d] + (f[d] ? s[d] - 1 - idx[d] : idx[d]);
        std::memcpy(out.data() + static_cast<std::size_t>(e) * es,
                    in + static_cast<std::size_t>(src) * es, es);
    }
    return out;
}

tensor filled(dtype t, const shape_t& s, std::uint32_t seed) {
    tensor x(t, s);
    std::mt19937 rng(seed);
    auto* b = x.data();
    const auto bytes = static_cast<std::size_t>(x.numel()) * size_of(t);
    for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<std::byte>(rng() & 0xff);
    if (t == dtype::boolean)
        for (auto& v : x.span<bool>()) v = (rng() & 1) != 0;
    return x;
}
}  // namespace

TEST_CASE("flip matches the baseline for every set of axes, rank and dtype") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{}, shape_t{5}, shape_t{3, 4}, shape_t{2, 3, 4},
                             shape_t{2, 1, 3, 2}, shape_t{3, 0, 2}})
        for (dtype t : {dtype::f32, dtype::i64, dtype::boolean, dtype::f16}) {
            const auto rank = s.size();
            for (std::uint32_t mask = 0; mask < (1u << rank); ++mask)
                for (bool negative : {false, true}) {
                    std::vector<std::int64_t> axis;
                    std::vector<bool> f(rank, false);
                    // Listed from the last dim down, so the order is not sorted.
                    for (std::size_t d = rank; d-- > 0;)
                        if (mask & (1u << d)) {
                            f[d] = true;
                            axis.push_back(negative ? static_cast<std::int64_t>(d) -
                                                          static_cast<std::int64_t>(rank)
                                                    : static_cast<std::int64_t>(d));
                        }
                    CAPTURE(to_string(s));
                    CAPTURE(name_of(t));
                    CAPTURE(mask);
                    CAPTURE(negative);
                    auto x = filled(t, s, seed++);
                    attr_map a;
                    a.set("axis", axis);
                    auto out =
                        invoke("flip", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
                    REQUIRE(out.type() == t);
                    REQUIRE(out.shape() == s);
                    const auto want = baseline(x, f);
                    const auto* got = out.data();
                    CHECK(std::equal(want.begin(), want.end(), got));
                    // Flipping twice gives X back.
                    auto back =
                        invoke("flip", a, named_tensors{}.add("X", out), {{"Out", 1}}).get("Out");
                    CHECK(std::equal(back.data(), back.data() + want.size(), x.data()));
                }
        }
}

TEST_CASE("flip: a known small case, and bad axes are named") {
    auto x = tensor::from<float>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    attr_map a;
    a.set("axis", std::vector<std::int32_t>{1});  // PIR gives int32 lists
    auto out = invoke("flip", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    // Row order kept, each row reversed: the baseline agrees with the definition.
    CHECK(out.span<float>()[0] == x.span<float>()[2]);
    CHECK(out.span<float>()[3] == x.span<float>()[5]);
    const auto ref = baseline(x, {false, true});
    CHECK(std::equal(ref.begin(), ref.end(), out.data()));
    a.set("axis", std::vector<std::int64_t>{2});
    CHECK_THROWS_WITH_AS(invoke("flip", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("axis 2 is out of range for rank 2"), shape_error);
    a.set("axis", std::vector<std::int64_t>{-3});
    CHECK_THROWS_WITH_AS(invoke("flip", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("axis -3 is out of range for rank 2"), shape_error);
    a.set("axis", std::vector<std::int64_t>{1, -1});
    CHECK_THROWS_WITH_AS(invoke("flip", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("axis -1 is repeated"), shape_error);
}

}  // namespace ops_flip_test
