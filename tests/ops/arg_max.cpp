// arg_max against a plain-loop baseline: every axis (also negative), keepdims,
// flatten, int32/int64 output, first max wins on ties.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_arg_max_test {

namespace {
// Index of the first largest x[a, k, b] over k, for X viewed as [outer, n, inner].
std::vector<std::int64_t> baseline(std::span<const float> x, std::int64_t outer, std::int64_t n,
                                   std::int64_t inner) {
    std::vector<std::int64_t> out;
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t b = 0; b < inner; ++b) {
            std::int64_t best = 0;
            for (std::int64_t k = 0; k < n; ++k)
                if (x[(a * n + k) * inner + b] > x[(a * n + best) * inner + b]) best = k;
            out.push_back(best);
        }
    return out;
}

attr_map args(std::int64_t axis, bool keepdims, bool flatten, int dtype) {
    attr_map a;
    a.set("axis", axis);
    a.set("keepdims", keepdims);
    a.set("flatten", flatten);
    a.set("dtype", dtype);
    return a;
}

std::vector<std::int64_t> as_i64(const tensor& t) {
    if (t.type() == dtype::i32) {
        auto s = t.span<std::int32_t>();
        return {s.begin(), s.end()};
    }
    auto s = t.span<std::int64_t>();
    return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("arg_max matches the baseline on every axis") {
    const shape_t shapes[] = {{7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 5}};
    for (const auto& s : shapes) {
        // Few distinct values so that ties occur and the first max must win.
        auto x = test::random_tensor(s, 41);
        for (auto& v : x.span<float>()) v = std::round(v * 2);
        const auto rank = static_cast<std::int64_t>(s.size());
        for (std::int64_t axis = -rank; axis < rank; ++axis)
            for (bool keep : {false, true})
                for (int dt : {2, 3}) {
                    CAPTURE(to_string(s));
                    CAPTURE(axis);
                    CAPTURE(keep);
                    const auto ax = axis < 0 ? axis + rank : axis;
                    auto r = invoke("arg_max", args(axis, keep, false, dt),
                                    named_tensors{}.add("X", x), {{"Out", 1}});
                    const auto& out = r.get("Out");
                    CHECK(out.type() == (dt == 2 ? dtype::i32 : dtype::i64));
                    shape_t expect;
                    std::int64_t outer = 1, inner = 1;
                    for (std::int64_t d = 0; d < rank; ++d) {
                        if (d < ax) outer *= s[d];
                        if (d > ax) inner *= s[d];
                        if (d != ax) expect.push_back(s[d]);
                        if (d == ax && keep) expect.push_back(1);
                    }
                    if (expect.empty()) expect = {1};
                    CHECK(out.shape() == expect);
                    CHECK(as_i64(out) == baseline(x.span<float>(), outer, s[ax], inner));
                }
    }
}

TEST_CASE("arg_max flatten reduces everything to [1]; default dtype is int64") {
    auto x = test::random_tensor({3, 4}, 42);
    x.span<float>()[7] = 5.f;
    x.span<float>()[9] = 5.f;
    auto r = invoke("arg_max", args(0, false, true, -1), named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{1});
    CHECK(r.get("Out").type() == dtype::i64);
    CHECK(as_i64(r.get("Out")) == std::vector<std::int64_t>{7});
    attr_map none;
    auto r2 = invoke("arg_max", none, named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r2.get("Out").type() == dtype::i64);
    CHECK(r2.get("Out").shape() == shape_t{3});
    auto xi = tensor::from<std::int32_t>({2, 3}, std::vector<std::int32_t>{1, 9, 9, -4, -2, -3});
    CHECK(as_i64(invoke("arg_max", args(1, false, false, 3), named_tensors{}.add("X", xi),
                        {{"Out", 1}})
                     .get("Out")) == std::vector<std::int64_t>{1, 1});
}

TEST_CASE("arg_max names bad attributes") {
    auto x = test::random_tensor({3, 4}, 43);
    CHECK_THROWS_WITH_AS(
        invoke("arg_max", args(2, false, false, 3), named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("axis 2 is out of range"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("arg_max", args(0, false, false, 5), named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("dtype 5"), shape_error);
}

}  // namespace ops_arg_max_test
