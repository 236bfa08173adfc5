// split against a plain-loop baseline: every axis (also negative and from
// AxisTensor), num and sections (with a -1, zero-size parts, from
// SectionsTensorList), int64 data; bad sections, nums and axes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_split_test {

namespace {
std::vector<std::int64_t> unravel(std::int64_t i, const shape_t& s) {
    std::vector<std::int64_t> c(s.size());
    for (std::size_t d = s.size(); d-- > 0;) {
        c[d] = i % s[d];
        i /= s[d];
    }
    return c;
}
std::int64_t ravel(const std::vector<std::int64_t>& c, const shape_t& s) {
    std::int64_t i = 0;
    for (std::size_t d = 0; d < s.size(); ++d) i = i * s[d] + c[d];
    return i;
}
// Part `k` of x along `axis`: x[..., start + j, ...].
std::vector<float> part(const tensor& x, std::size_t axis, std::int64_t start, std::int64_t size) {
    shape_t s = x.shape();
    s[axis] = size;
    std::vector<float> out;
    for (std::int64_t i = 0; i < numel(s); ++i) {
        auto c = unravel(i, s);
        c[axis] += start;
        out.push_back(x.span<float>()[static_cast<std::size_t>(ravel(c, x.shape()))]);
    }
    return out;
}
named_tensors run_split(const tensor& x, const attr_map& a, std::size_t n,
                        named_tensors extra = {}) {
    extra.add("X", x);
    return invoke("split", a, extra, {{"Out", n}});
}
}  // namespace

TEST_CASE("split by num matches the baseline on every axis") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{6}, shape_t{4, 6}, shape_t{2, 3, 4}, shape_t{6, 0}}) {
        const auto rank = static_cast<int>(s.size());
        for (int axis = -rank; axis < rank; ++axis) {
            const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
            for (std::int64_t num : {1, 2, 3, 6}) {
                if (s[ax] % num) continue;
                CAPTURE(to_string(s));
                CAPTURE(axis);
                CAPTURE(num);
                auto x = test::random_tensor(s, seed++);
                attr_map a;
                a.set("axis", axis);
                a.set("num", num);
                auto r = run_split(x, a, static_cast<std::size_t>(num));
                const auto size = s[ax] / num;
                for (std::int64_t k = 0; k < num; ++k) {
                    shape_t e = s;
                    e[ax] = size;
                    const auto& o = r.get("Out", static_cast<std::size_t>(k));
                    CHECK(o.shape() == e);
                    CHECK(test::max_abs_diff(o.span<float>(), part(x, ax, k * size, size)) == 0);
                }
            }
        }
    }
}

TEST_CASE("split by sections, with -1, zero parts and tensor forms") {
    auto x = test::random_tensor({3, 7, 2}, 5);
    using sec = std::vector<std::int64_t>;
    for (const auto& parts :
         std::vector<std::pair<sec, sec>>{{{7}, {7}},
                                          {{2, 5}, {2, 5}},
                                          {{2, -1, 1}, {2, 4, 1}},
                                          {{-1, 0, 7}, {0, 0, 7}},
                                          {{1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}}}) {
        const sec& sections = parts.first;  // (clang 14 captures no binding)
        const sec& expect = parts.second;
        CAPTURE(to_string(sections));
        for (int form = 0; form < 3; ++form) {
            attr_map a;
            named_tensors extra;
            if (form == 0) {
                a.set("sections", sections);
                a.set("axis", -2);
            } else if (form == 1) {
                // AxisTensor and SectionsTensorList override the attributes.
                a.set("sections", sec(sections.size(), 99));
                a.set("axis", 0);
                extra.add("AxisTensor",
                          tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{1}));
                for (auto v : sections)
                    extra.add("SectionsTensorList",
                              tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{v}));
            } else {
                a.set("sections", sections);
                extra.add("AxisTensor",
                          tensor::from<std::int64_t>({}, std::vector<std::int64_t>{1}));
            }
            auto r = run_split(x, a, sections.size(), extra);
            std::int64_t start = 0;
            for (std::size_t k = 0; k < expect.size(); ++k) {
                const auto& o = r.get("Out", k);
                CHECK(o.shape() == shape_t{3, expect[k], 2});
                CHECK(test::max_abs_diff(o.span<float>(), part(x, 1, start, expect[k])) == 0);
                start += expect[k];
            }
        }
    }
}

TEST_CASE("split keeps int64 values and an unknown dim stays unknown in shape inference") {
    auto x = tensor::from<std::int64_t>({2, 4}, std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8});
    attr_map a;
    a.set("axis", 1);
    a.set("sections", std::vector<std::int64_t>{3, -1});
    auto r = run_split(x, a, 2);
    auto v0 = r.get("Out", 0).span<std::int64_t>();
    auto v1 = r.get("Out", 1).span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(v0.begin(), v0.end()) ==
          std::vector<std::int64_t>{1, 2, 3, 5, 6, 7});
    CHECK(std::vector<std::int64_t>(v1.begin(), v1.end()) == std::vector<std::int64_t>{4, 8});

    // Shape inference alone with an unknown batch dim.
    auto k = make_instance("split", a);
    tensor_ref in{"x", dtype::f32, {-1, 4}, nullptr, {}};
    tensor_ref o0, o1;
    op_io io;
    io.type = "split";
    io.label = "o";
    io.inputs.push_back({"X", {&in}});
    io.outputs.push_back({"Out", {&o0, &o1}});
    k->infer(io);
    CHECK(o0.shape == shape_t{-1, 3});
    CHECK(o1.shape == shape_t{-1, 1});
}

TEST_CASE("split names bad input") {
    auto x = test::random_tensor({2, 6}, 1);
    attr_map a;
    a.set("axis", 1);
    a.set("num", 4);
    CHECK_THROWS_WITH_AS(run_split(x, a, 4),
                         doctest::Contains("dim 1 of X (6) does not divide into num 4 parts"),
                         shape_error);
    a.set("num", 3);
    CHECK_THROWS_WITH_AS(run_split(x, a, 2),
                         doctest::Contains("num is 3 but the op has 2 outputs Out"), shape_error);
    attr_map b;
    b.set("axis", 1);
    b.set("sections", std::vector<std::int64_t>{2, 3});
    CHECK_THROWS_WITH_AS(run_split(x, b, 2),
                         doctest::Contains("sections sum to 5, dim 1 of X is 6"), shape_error);
    b.set("sections", std::vector<std::int64_t>{-1, -1});
    CHECK_THROWS_WITH_AS(run_split(x, b, 2), doctest::Contains("at most one of sections may be -1"),
                         shape_error);
    b.set("sections", std::vector<std::int64_t>{7, -1});
    CHECK_THROWS_WITH_AS(run_split(x, b, 2), doctest::Contains("sections sum to 7, more than dim"),
                         shape_error);
    b.set("sections", std::vector<std::int64_t>{8, -2});
    CHECK_THROWS_WITH_AS(run_split(x, b, 2), doctest::Contains("section -2 is negative"),
                         shape_error);
    b.set("sections", std::vector<std::int64_t>{2, 4});
    CHECK_THROWS_WITH_AS(run_split(x, b, 3), doctest::Contains("2 sections but the op has 3"),
                         shape_error);
    b.set("axis", 2);
    CHECK_THROWS_WITH_AS(run_split(x, b, 2), doctest::Contains("axis 2 is out of range for rank 2"),
                         shape_error);
    CHECK_THROWS_WITH_AS(run_split(x, {}, 1), doctest::Contains("needs num > 0 or sections"),
                         shape_error);
    named_tensors extra;
    b.set("axis", 0);
    extra.add("AxisTensor", tensor::from<float>({1}, std::vector<float>{1.f}));
    CHECK_THROWS_WITH_AS(run_split(x, b, 2, extra), doctest::Contains("must be int32 or int64"),
                         shape_error);
}

}  // namespace ops_split_test
