// sequence_expand against a loop written here: X with and without a LoD,
// Y of one and two levels with every ref_level, sequences repeated 0, 1 and
// several times, empty X sequences, int64 data; bad LoDs and ref_level named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_sequence_expand_test {

namespace {
attr_map ref(int level) {
    attr_map a;
    a.set("ref_level", level);
    return a;
}

// Expected rows (as X row indices) and the out LoD.
void baseline(const std::vector<std::int64_t>* xlod, std::int64_t xrows,
              const std::vector<std::int64_t>& r, std::vector<std::int64_t>& rows, lod_t& lod) {
    rows.clear();
    lod.clear();
    if (xlod) lod = {{0}};
    for (std::size_t i = 0; i + 1 < r.size(); ++i) {
        const std::int64_t b = xlod ? (*xlod)[i] : static_cast<std::int64_t>(i);
        const std::int64_t e = xlod ? (*xlod)[i + 1] : b + 1;
        for (std::int64_t k = 0; k < r[i + 1] - r[i]; ++k) {
            for (std::int64_t t = b; t < e; ++t) rows.push_back(t);
            if (xlod) lod[0].push_back(lod[0].back() + (e - b));
        }
    }
    (void)xrows;
}
}  // namespace

TEST_CASE("sequence_expand matches the baseline") {
    struct ycase {
        lod_t lod;
        std::int64_t rows;
    };
    const std::vector<ycase> ys{{{{0, 2, 2, 5}}, 5},
                                {{{0, 1, 3}, {0, 2, 2, 5}}, 5},
                                {{{0, 3}}, 3},
                                {{{0, 0, 1, 4}, {0, 1, 2, 3, 7}}, 7}};
    std::uint32_t seed = 1;
    for (const auto& y : ys)
        for (int level = -1; level < static_cast<int>(y.lod.size()); ++level) {
            const auto& r = y.lod[static_cast<std::size_t>(level < 0 ? y.lod.size() - 1 : level)];
            const std::int64_t seqs = static_cast<std::int64_t>(r.size()) - 1;
            // X with a LoD: seqs sequences of lengths 0..2; and X without one: seqs rows.
            std::vector<std::int64_t> xl{0};
            for (std::int64_t i = 0; i < seqs; ++i) xl.push_back(xl.back() + (i * 5 + 2) % 3);
            for (bool with_lod : {true, false}) {
                CAPTURE(lod_to_string(y.lod));
                CAPTURE(level);
                CAPTURE(with_lod);
                const std::int64_t xrows = with_lod ? xl.back() : seqs;
                auto x = test::random_tensor({xrows, 3}, seed++);
                if (with_lod) x.set_lod({xl});
                auto yt = test::random_tensor({y.rows, 1}, seed++);
                yt.set_lod(y.lod);
                auto res = invoke("sequence_expand", ref(level),
                                  named_tensors{}.add("X", x).add("Y", yt), {{"Out", 1}});
                std::vector<std::int64_t> rows;
                lod_t lod;
                baseline(with_lod ? &xl : nullptr, xrows, r, rows, lod);
                const auto& out = res.get("Out");
                REQUIRE(out.shape() == shape_t{static_cast<std::int64_t>(rows.size()), 3});
                CHECK(out.lod() == lod);
                for (std::size_t i = 0; i < rows.size(); ++i)
                    for (std::size_t k = 0; k < 3; ++k)
                        CHECK(out.span<float>()[i * 3 + k] ==
                              x.span<float>()[static_cast<std::size_t>(rows[i]) * 3 + k]);
            }
        }
}

TEST_CASE("sequence_expand copies int64 rows") {
    tensor x(dtype::i64, {3});
    for (std::int64_t i = 0; i < 3; ++i)
        x.span<std::int64_t>()[static_cast<std::size_t>(i)] = 10 + i;
    tensor y(dtype::f32, {6, 1});
    y.set_lod({{0, 3, 3, 6}});
    auto r =
        invoke("sequence_expand", ref(-1), named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}});
    const std::vector<std::int64_t> want{10, 10, 10, 12, 12, 12};
    CHECK(std::vector<std::int64_t>(r.get("Out").span<std::int64_t>().begin(),
                                    r.get("Out").span<std::int64_t>().end()) == want);
    CHECK(r.get("Out").lod().empty());
}

TEST_CASE("sequence_expand names bad inputs") {
    auto x = test::random_tensor({3, 2}, 1);
    auto y = test::random_tensor({4, 1}, 2);
    auto run = [&](const attr_map& a) {
        return invoke("sequence_expand", a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}});
    };
    CHECK_THROWS_WITH_AS(run(ref(-1)), doctest::Contains("Y ('Y') has no LoD"), shape_error);
    y.set_lod({{0, 1, 4}});
    CHECK_THROWS_WITH_AS(run(ref(-1)),
                         doctest::Contains("X has 3 rows but Y's reference level has 2 entries"),
                         shape_error);
    CHECK_THROWS_WITH_AS(run(ref(1)), doctest::Contains("ref_level 1 is out of range"),
                         shape_error);
    CHECK_THROWS_WITH_AS(run(ref(-2)), doctest::Contains("ref_level -2 is out of range"),
                         shape_error);
    x.set_lod({{0, 1, 3}, {0, 1, 2, 3}});
    CHECK_THROWS_WITH_AS(run(ref(-1)), doctest::Contains("takes at most 1"), shape_error);
}

}  // namespace ops_sequence_expand_test
