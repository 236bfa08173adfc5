// argsort against a plain insertion sort: every axis, ascending and
// descending, ties (stable: lower index first), NaN (last ascending, first
// descending), int and double data, empty and 0-D X; bad axes and dtypes are named.
#include <cmath>
#include <limits>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_arg_sort_test {

namespace {
// Insertion sort of (value, index): moves an element before its left
// neighbour only when strictly better, so ties keep their order.
template <class T>
void check_argsort(const tensor& x, std::int64_t axis, bool descending, const named_tensors& r) {
    const auto& s = x.shape();
    std::int64_t outer = 1, inner = 1, n = s.empty() ? 1 : s[static_cast<std::size_t>(axis)];
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d)
        if (d != axis) (d < axis ? outer : inner) *= s[static_cast<std::size_t>(d)];
    REQUIRE(r.get("Out").shape() == s);
    REQUIRE(r.get("Indices").shape() == s);
    auto better = [&](T a, T b) {
        const bool an = std::isnan(static_cast<double>(a)), bn = std::isnan(static_cast<double>(b));
        if (an || bn) return descending ? an && !bn : bn && !an;
        return descending ? a > b : a < b;
    };
    auto xv = x.span<T>();
    auto ov = r.get("Out").span<T>();
    auto iv = r.get("Indices").span<std::int64_t>();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            std::vector<std::pair<T, std::int64_t>> row;
            for (std::int64_t j = 0; j < n; ++j) {
                row.push_back({xv[(o * n + j) * inner + i], j});
                for (auto p = row.size() - 1; p > 0 && better(row[p].first, row[p - 1].first); --p)
                    std::swap(row[p], row[p - 1]);
            }
            for (std::int64_t j = 0; j < n; ++j) {
                const auto at = static_cast<std::size_t>((o * n + j) * inner + i);
                const T got = ov[at], want = row[static_cast<std::size_t>(j)].first;
                CHECK((got == want || (std::isnan(static_cast<double>(got)) &&
                                       std::isnan(static_cast<double>(want)))));
                CHECK(iv[at] == row[static_cast<std::size_t>(j)].second);
            }
        }
}
}  // namespace

TEST_CASE("argsort matches the insertion sort") {
    std::uint32_t seed = 1;
    for (const shape_t& s :
         {shape_t{9}, shape_t{3, 5}, shape_t{2, 4, 3}, shape_t{3, 1}, shape_t{2, 0}})
        for (std::int64_t axis = -static_cast<std::int64_t>(s.size());
             axis < static_cast<std::int64_t>(s.size()); ++axis)
            for (bool descending : {false, true}) {
                CAPTURE(to_string(s));
                CAPTURE(axis);
                CAPTURE(descending);
                auto x = test::random_tensor(s, seed++, -2.5f, 2.5f);
                for (auto& v : x.span<float>()) v = std::round(v);  // ties
                attr_map a;
                a.set("axis", axis);
                a.set("descending", descending);
                auto r =
                    invoke("argsort", a, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
                check_argsort<float>(
                    x, axis < 0 ? axis + static_cast<std::int64_t>(s.size()) : axis, descending, r);
            }
}

TEST_CASE("argsort on NaN, int and double data, and a 0-D X") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto x = tensor::from<float>({5}, std::vector<float>{nan, 1, nan, -1, 1});
    for (bool descending : {false, true}) {
        attr_map a;
        a.set("descending", descending);
        auto r = invoke("argsort", a, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
        check_argsort<float>(x, 0, descending, r);
        auto iv = r.get("Indices").span<std::int64_t>();
        CHECK(std::vector<std::int64_t>(iv.begin(), iv.end()) ==
              (descending ? std::vector<std::int64_t>{0, 2, 1, 4, 3}
                          : std::vector<std::int64_t>{3, 1, 4, 0, 2}));
    }
    auto xi = tensor::from<std::int64_t>({2, 3}, std::vector<std::int64_t>{3, 1, 3, 0, 0, -5});
    auto r = invoke("argsort", {}, named_tensors{}.add("X", xi), {{"Out", 1}, {"Indices", 1}});
    check_argsort<std::int64_t>(xi, 1, false, r);
    auto xd = tensor::from<double>({3}, std::vector<double>{0.5, -0.5, 0.5});
    attr_map d;
    d.set("descending", true);
    r = invoke("argsort", d, named_tensors{}.add("X", xd), {{"Out", 1}, {"Indices", 1}});
    check_argsort<double>(xd, 0, true, r);
    auto x0 = tensor::from<std::int32_t>({}, std::vector<std::int32_t>{7});
    r = invoke("argsort", {}, named_tensors{}.add("X", x0), {{"Out", 1}, {"Indices", 1}});
    CHECK(r.get("Out").span<std::int32_t>()[0] == 7);
    CHECK(r.get("Indices").span<std::int64_t>()[0] == 0);
}

TEST_CASE("argsort names bad input") {
    attr_map a;
    a.set("axis", 2);
    CHECK_THROWS_WITH_AS(
        invoke("argsort", a, named_tensors{}.add("X", test::random_tensor({2, 3}, 1)),
               {{"Out", 1}, {"Indices", 1}}),
        doctest::Contains("axis 2 is out of range for rank 2"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("argsort", {},
                                named_tensors{}.add("X", tensor::from<std::int8_t>(
                                                             {2}, std::vector<std::int8_t>{1, 2})),
                                {{"Out", 1}, {"Indices", 1}}),
                         doctest::Contains("X of dtype int8 is not supported"), shape_error);
}

}  // namespace ops_arg_sort_test
