// ctc_align against a loop written here (collapse then drop blanks, per
// sequence): LoD and padded forms, merge_repeated both ways, blank other than
// 0, repeats separated by blanks, empty sequences, a leading -1 token, all
// tokens dropped, int32 and int64; bad lengths and a missing LoD are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_ctc_align_test {

namespace {
attr_map attrs(std::int64_t blank, bool merge, std::int64_t pad = 0) {
    attr_map a;
    a.set("blank", blank);
    a.set("merge_repeated", merge);
    a.set("padding_value", pad);
    return a;
}

// Groups of equal neighbours collapse to one (merge), then blanks go.  A
// leading token equal to -1 counts as a repeat of the start (Paddle's rule).
std::vector<std::int64_t> decode(const std::vector<std::int64_t>& seq, std::int64_t blank,
                                 bool merge) {
    std::vector<std::int64_t> r;
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const std::int64_t before = i == 0 ? -1 : seq[i - 1];
        if (merge && seq[i] == before) continue;
        if (seq[i] != blank) r.push_back(seq[i]);
    }
    return r;
}

tensor tokens(dtype t, const shape_t& s, const std::vector<std::int64_t>& v) {
    tensor x(t, s);
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (t == dtype::i64)
            x.span<std::int64_t>()[i] = v[i];
        else
            x.span<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
    }
    return x;
}

std::vector<std::int64_t> values(const tensor& t) {
    std::vector<std::int64_t> r;
    if (t.type() == dtype::i64)
        for (auto v : t.span<std::int64_t>()) r.push_back(v);
    else
        for (auto v : t.span<std::int32_t>()) r.push_back(v);
    return r;
}
}  // namespace

TEST_CASE("ctc_align with a LoD matches the baseline") {
    const std::vector<std::int64_t> data{0, 1, 1, 0, 1, 2, 2, 2, 0, 0, 3, -1, -1, 4, 0, 4, 4, 5};
    const std::vector<std::vector<std::int64_t>> lods{
        {0, 5, 5, 11, 18}, {0, 18}, {0, 1, 2, 3, 18}, {0, 0, 11, 13, 18}};
    for (auto t : {dtype::i32, dtype::i64})
        for (const auto& off : lods)
            for (std::int64_t blank : {0, 2, 7})
                for (bool merge : {true, false}) {
                    CAPTURE(lod_to_string({off}));
                    CAPTURE(blank);
                    CAPTURE(merge);
                    auto x = tokens(t, {18, 1}, data);
                    x.set_lod({off});
                    auto r = invoke("ctc_align", attrs(blank, merge),
                                    named_tensors{}.add("Input", x), {{"Output", 1}});
                    std::vector<std::int64_t> want, lod{0};
                    for (std::size_t s = 0; s + 1 < off.size(); ++s) {
                        auto d = decode({data.begin() + off[s], data.begin() + off[s + 1]}, blank,
                                        merge);
                        want.insert(want.end(), d.begin(), d.end());
                        lod.push_back(static_cast<std::int64_t>(want.size()));
                    }
                    CHECK(r.get("Output").shape() ==
                          shape_t{static_cast<std::int64_t>(want.size()), 1});
                    CHECK(values(r.get("Output")) == want);
                    CHECK(r.get("Output").lod() == lod_t{lod});
                }
}

TEST_CASE("ctc_align with nothing kept gives one row [-1]") {
    auto x = tokens(dtype::i64, {4, 1}, {0, 0, 0, 0});
    x.set_lod({{0, 1, 1, 4}});
    auto r = invoke("ctc_align", attrs(0, true), named_tensors{}.add("Input", x), {{"Output", 1}});
    CHECK(r.get("Output").shape() == shape_t{1, 1});
    CHECK(values(r.get("Output")) == std::vector<std::int64_t>{-1});
    CHECK(r.get("Output").lod().empty());
    auto e = tokens(dtype::i64, {0, 1}, {});
    e.set_lod({{0, 0}});
    auto re = invoke("ctc_align", attrs(0, true), named_tensors{}.add("Input", e), {{"Output", 1}});
    CHECK(values(re.get("Output")) == std::vector<std::int64_t>{-1});
}

TEST_CASE("ctc_align padded form with InputLength") {
    const std::vector<std::int64_t> data{1, 1, 0, 2, 2, 0,  //
                                         0, 0, 0, 0, 0, 0,  //
                                         3, 3, 3, 4, 0, 4,  //
                                         5, 0, 5, 5, 6, 6};
    const std::vector<std::int64_t> lens{5, 6, 6, 0};
    for (auto t : {dtype::i32, dtype::i64})
        for (bool merge : {true, false}) {
            auto x = tokens(t, {4, 6}, data);
            auto l = tokens(t, {4, 1}, lens);
            auto r = invoke("ctc_align", attrs(0, merge, -9),
                            named_tensors{}.add("Input", x).add("InputLength", l),
                            {{"Output", 1}, {"OutputLength", 1}});
            std::vector<std::int64_t> want, want_len;
            for (std::size_t b = 0; b < 4; ++b) {
                auto d = decode({data.begin() + static_cast<std::ptrdiff_t>(b * 6),
                                 data.begin() + static_cast<std::ptrdiff_t>(b * 6 + lens[b])},
                                0, merge);
                want_len.push_back(static_cast<std::int64_t>(d.size()));
                d.resize(6, -9);
                want.insert(want.end(), d.begin(), d.end());
            }
            CHECK(r.get("Output").shape() == shape_t{4, 6});
            CHECK(values(r.get("Output")) == want);
            CHECK(r.get("OutputLength").shape() == shape_t{4, 1});
            CHECK(values(r.get("OutputLength")) == want_len);
        }
}

TEST_CASE("ctc_align names bad inputs") {
    auto x = tokens(dtype::i64, {3, 1}, {1, 2, 3});
    auto run = [](const named_tensors& in) {
        return invoke("ctc_align", attrs(0, true), in, {{"Output", 1}, {"OutputLength", 1}});
    };
    CHECK_THROWS_WITH_AS(run(named_tensors{}.add("Input", x)),
                         doctest::Contains("Input must have a LoD of one level, has 0"),
                         shape_error);
    auto p = tokens(dtype::i64, {2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Input", p).add("InputLength", tokens(dtype::i64, {2}, {3, 4}))),
        doctest::Contains("InputLength[1] = 4 is outside [0, 3]"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Input", p).add("InputLength", tokens(dtype::i64, {2}, {-1, 1}))),
        doctest::Contains("InputLength[0] = -1 is outside"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Input", p).add("InputLength", tokens(dtype::i64, {3}, {1, 1, 1}))),
        doctest::Contains("InputLength must hold one int32 or int64 length per row (2)"),
        shape_error);
    tensor f(dtype::f32, {3, 1});
    f.set_lod({{0, 3}});
    CHECK_THROWS_WITH_AS(run(named_tensors{}.add("Input", f)),
                         doctest::Contains("Input must be int32 or int64 token ids"), shape_error);
}

}  // namespace ops_ctc_align_test
