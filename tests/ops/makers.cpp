#include "litegraph/ops/makers.hpp"

#include <cmath>

#include "firmware_form.hpp"
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_makers_test {

namespace {
template <class T>
std::vector<T> values_of(const tensor& t) {
    auto s = t.span<T>();
    return {s.begin(), s.end()};
}
template <class T>
tensor one(T v) {
    return tensor::from<T>({1}, std::vector<T>{v});
}
named_tensors run_range(const tensor& s, const tensor& e, const tensor& st) {
    return invoke("range", {}, named_tensors{}.add("Start", s).add("End", e).add("Step", st),
                  {{"Out", 1}});
}
}  // namespace

TEST_CASE("assign copies X of any dtype and shape") {
    for (const shape_t& s : {shape_t{2, 3}, shape_t{0, 4}, shape_t{}, shape_t{5}}) {
        auto x = test::random_tensor(s, 3);
        auto out = invoke("assign", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(out.shape() == s);
        CHECK(values_of<float>(out) == values_of<float>(x));
    }
    auto i = tensor::from<std::int64_t>({3}, std::vector<std::int64_t>{7, -1, 5});
    auto o = invoke("assign", {}, named_tensors{}.add("X", i), {{"Out", 1}}).get("Out");
    CHECK(o.type() == dtype::i64);
    CHECK(values_of<std::int64_t>(o) == values_of<std::int64_t>(i));
}

TEST_CASE("fill_any_like: X's shape, value, X's dtype or the dtype attribute") {
    auto x = test::random_tensor({2, 3}, 1);
    for (double v : {0.0, 1.5, -3.0}) {
        attr_map a;
        a.set("value", static_cast<float>(v));
        auto o = invoke("fill_any_like", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(o.type() == dtype::f32);
        CHECK(o.shape() == shape_t{2, 3});
        CHECK(values_of<float>(o) == std::vector<float>(6, static_cast<float>(v)));
        a.set("dtype", 3);  // int64: 1.5 truncates to 1
        auto i = invoke("fill_any_like", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(i.type() == dtype::i64);
        CHECK(values_of<std::int64_t>(i) ==
              std::vector<std::int64_t>(6, static_cast<std::int64_t>(v)));
        a.set("dtype", 0);  // bool
        auto b = invoke("fill_any_like", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(values_of<bool>(b) == std::vector<bool>(6, v != 0));
    }
    auto e = invoke("fill_any_like", {}, named_tensors{}.add("X", test::random_tensor({0, 2}, 1)),
                    {{"Out", 1}})
                 .get("Out");
    CHECK(e.shape() == shape_t{0, 2});
    attr_map bad;
    bad.set("dtype", 42);
    CHECK_THROWS_WITH_AS(invoke("fill_any_like", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("attribute 'dtype' = 42"), unsupported_error);
    attr_map big;
    big.set("value", 1e10f);
    big.set("dtype", 2);
    CHECK_THROWS_WITH_AS(invoke("fill_any_like", big, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("does not fit the output dtype int32"), shape_error);
}

TEST_CASE("fill_constant_batch_size_like takes one dim of Input") {
    auto in = test::random_tensor({4, 7, 2}, 1);
    for (int idim : {0, 1, 2})
        for (int odim : {0, 1}) {
            CAPTURE(idim);
            CAPTURE(odim);
            attr_map a;
            const std::vector<std::int32_t> shape =
                odim == 0 ? std::vector<std::int32_t>{-1, 3} : std::vector<std::int32_t>{5, -1};
            a.set("shape", shape);
            a.set("value", 2.5f);
            a.set("dtype", 5);
            a.set("input_dim_idx", idim);
            a.set("output_dim_idx", odim);
            auto o = invoke("fill_constant_batch_size_like", a, named_tensors{}.add("Input", in),
                            {{"Out", 1}})
                         .get("Out");
            shape_t want(shape.begin(), shape.end());
            want[static_cast<std::size_t>(odim)] = in.shape()[static_cast<std::size_t>(idim)];
            CHECK(o.shape() == want);
            CHECK(values_of<float>(o) ==
                  std::vector<float>(static_cast<std::size_t>(numel(want)), 2.5f));
        }
    attr_map a;
    a.set("shape", std::vector<std::int32_t>{-1, 3});
    a.set("dtype", 2);
    a.set("str_value", std::string("-4"));
    auto o =
        invoke("fill_constant_batch_size_like", a, named_tensors{}.add("Input", in), {{"Out", 1}})
            .get("Out");
    CHECK(o.shape() == shape_t{4, 3});
    CHECK(values_of<std::int32_t>(o) == std::vector<std::int32_t>(12, -4));
    a.set("input_dim_idx", 3);
    CHECK_THROWS_WITH_AS(
        invoke("fill_constant_batch_size_like", a, named_tensors{}.add("Input", in), {{"Out", 1}}),
        doctest::Contains("input_dim_idx 3 is out of range for Input of rank 3"), shape_error);
    a.set("input_dim_idx", 0);
    a.set("output_dim_idx", 2);
    CHECK_THROWS_WITH_AS(
        invoke("fill_constant_batch_size_like", a, named_tensors{}.add("Input", in), {{"Out", 1}}),
        doctest::Contains("output_dim_idx 2 is out of range"), shape_error);
    a.set("output_dim_idx", 1);
    CHECK_THROWS_WITH_AS(
        invoke("fill_constant_batch_size_like", a, named_tensors{}.add("Input", in), {{"Out", 1}}),
        doctest::Contains("has a negative dim"), shape_error);
}

TEST_CASE("fill_constant_batch_size_like's firmware form equals the runtime op, every dtype") {
    auto in = test::random_tensor({3, 5}, 2);
    // Paddle's codes: bool, int16, int32, int64, float16, float32, float64, uint8, int8.
    for (int code : {0, 1, 2, 3, 4, 5, 6, 20, 21})
        for (double v : {2.5, -4.0, 0.0, 1.0}) {
            if ((code == 20 || code == 0) && v < 0) continue;
            CAPTURE(code);
            CAPTURE(v);
            attr_map a;
            a.set("shape", std::vector<std::int32_t>{-1, 7, 2});
            a.set("value", static_cast<float>(v));
            a.set("dtype", code);
            a.set("input_dim_idx", 1);
            const auto inputs = named_tensors{}.add("Input", in);
            const auto r = invoke("fill_constant_batch_size_like", a, inputs, {{"Out", 1}});
            const auto f = test::run_firmware_form<ops::fill_constant_batch_size_like>(
                "fill_constant_batch_size_like", a, inputs, {{"Out", 1}});
            CHECK(f.shape() == shape_t{5, 7, 2});
            CHECK(test::same_tensor_bytes(f, r.get("Out")));
            if (code == 5)
                CHECK(values_of<float>(f) == std::vector<float>(70, static_cast<float>(v)));
            if (code == 6) CHECK(values_of<double>(f) == std::vector<double>(70, v));
            if (code == 3)
                CHECK(values_of<std::int64_t>(f) ==
                      std::vector<std::int64_t>(70, static_cast<std::int64_t>(v)));
            if (code == 21)
                CHECK(values_of<std::int8_t>(f) ==
                      std::vector<std::int8_t>(70, static_cast<std::int8_t>(v)));
        }
}

TEST_CASE("range: Paddle's size and accumulation, for every dtype; bad steps are named") {
    // Integers: a plain loop while v < end (or > end for a negative step).
    for (auto r : {std::tuple{0, 10, 3}, {5, -7, -2}, {2, 3, 1}, {4, 4, 1}, {-3, 9, 4}}) {
        const int s = std::get<0>(r), e = std::get<1>(r), st = std::get<2>(r);
        CAPTURE(s);
        CAPTURE(e);
        CAPTURE(st);
        std::vector<std::int64_t> want;
        for (std::int64_t v = s; st > 0 ? v < e : v > e; v += st) want.push_back(v);
        auto o =
            run_range(one<std::int64_t>(s), one<std::int64_t>(e), one<std::int64_t>(st)).get("Out");
        CHECK(o.type() == dtype::i64);
        CHECK(values_of<std::int64_t>(o) == want);
        auto o32 =
            run_range(one<std::int32_t>(s), one<std::int32_t>(e), one<std::int32_t>(st)).get("Out");
        std::vector<std::int32_t> want32(want.begin(), want.end());
        CHECK(values_of<std::int32_t>(o32) == want32);
    }
    // Floats: ceil(|end - start| / |step|) values, each the previous plus step.
    for (auto r : {std::tuple{0.f, 1.f, 0.1f},
                   {1.5f, -2.f, -0.25f},
                   {0.f, 0.3f, 0.1f},
                   {-1.f, 2.5f, 0.7f}}) {
        const float s = std::get<0>(r), e = std::get<1>(r), st = std::get<2>(r);
        CAPTURE(s);
        CAPTURE(e);
        CAPTURE(st);
        const auto n = static_cast<std::size_t>(std::ceil(std::fabs((double(e) - s) / st)));
        std::vector<float> want;
        float v = s;
        for (std::size_t i = 0; i < n; ++i, v += st) want.push_back(v);
        auto o = run_range(one<float>(s), one<float>(e), one<float>(st)).get("Out");
        CHECK(values_of<float>(o) == want);
    }
    CHECK_THROWS_WITH_AS(run_range(one<float>(0), one<float>(1), one<float>(0)),
                         doctest::Contains("the step is 0"), shape_error);
    CHECK_THROWS_WITH_AS(
        run_range(one<std::int32_t>(0), one<std::int32_t>(5), one<std::int32_t>(-1)),
        doctest::Contains("the step must be positive when start < end"), shape_error);
    CHECK_THROWS_WITH_AS(
        run_range(one<std::int32_t>(5), one<std::int32_t>(0), one<std::int32_t>(1)),
        doctest::Contains("the step must be negative when start > end"), shape_error);
    CHECK_THROWS_WITH_AS(run_range(one<float>(0), one<std::int32_t>(5), one<float>(1)),
                         doctest::Contains("End is int32 but Start is float32"), shape_error);
    CHECK_THROWS_WITH_AS(
        run_range(tensor::from<float>({2}, std::vector<float>{0, 1}), one<float>(5), one<float>(1)),
        doctest::Contains("input 'Start' must hold one value"), shape_error);
}

TEST_CASE("range whose End is not known when planned is a clear error") {
    auto k = make_instance("range", {});
    tensor s = one<float>(0.f), e = one<float>(5.f), st = one<float>(1.f);
    tensor_ref rs = s.ref("s"), re = e.ref("e"), rst = st.ref("st"), ro;
    re.data = nullptr;  // computed by the program: no value before the run
    op_io io;
    io.type = "range";
    io.label = "out";
    io.inputs = {{"Start", {&rs}}, {"End", {&re}}, {"Step", {&rst}}};
    io.outputs = {{"Out", {&ro}}};
    CHECK_THROWS_WITH_AS(k->infer(io),
                         doctest::Contains("the value of input 'End' ('e') decides the output size "
                                           "but is not known before the run"),
                         shape_error);
}

TEST_CASE("where: Condition ? X : Y with numpy broadcasting") {
    struct c3 {
        shape_t c, x, y;
    };
    std::uint32_t seed = 9;
    for (const auto& k : {c3{{2, 3}, {2, 3}, {2, 3}}, c3{{2, 3}, {3}, {1}}, c3{{3}, {2, 3}, {2, 1}},
                          c3{{2, 1, 4}, {3, 1}, {4}}, c3{{0, 2}, {2}, {2}}, c3{{}, {2}, {2}}}) {
        CAPTURE(to_string(k.c));
        CAPTURE(to_string(k.x));
        CAPTURE(to_string(k.y));
        tensor c(dtype::boolean, k.c);
        std::mt19937 rng(seed++);
        for (auto& v : c.span<bool>()) v = (rng() & 1) != 0;
        auto x = test::random_tensor(k.x, seed++);
        auto y = test::random_tensor(k.y, seed++);
        auto out = invoke("where", {}, named_tensors{}.add("Condition", c).add("X", x).add("Y", y),
                          {{"Out", 1}})
                       .get("Out");
        // Baseline: the output shape by numpy rules, then each index clamped per input.
        const std::size_t n = std::max({k.c.size(), k.x.size(), k.y.size()});
        auto pad = [&](const shape_t& s) {
            shape_t p(n - s.size(), 1);
            p.insert(p.end(), s.begin(), s.end());
            return p;
        };
        const shape_t pc = pad(k.c), px = pad(k.x), py = pad(k.y);
        shape_t os(n);
        for (std::size_t d = 0; d < n; ++d) os[d] = std::max({pc[d], px[d], py[d]});
        for (std::size_t d = 0; d < n; ++d)
            if (pc[d] == 0 || px[d] == 0 || py[d] == 0) os[d] = 0;
        REQUIRE(out.shape() == os);
        std::vector<float> want;
        for (std::int64_t i = 0; i < numel(os); ++i) {
            std::int64_t rem = i, ic = 0, ix = 0, iy = 0, mc = 1, mx = 1, my = 1;
            for (std::size_t d = n; d-- > 0;) {
                const std::int64_t j = rem % os[d];
                rem /= os[d];
                ic += (pc[d] == 1 ? 0 : j) * mc;
                ix += (px[d] == 1 ? 0 : j) * mx;
                iy += (py[d] == 1 ? 0 : j) * my;
                mc *= pc[d];
                mx *= px[d];
                my *= py[d];
            }
            want.push_back(c.span<bool>()[static_cast<std::size_t>(ic)]
                               ? x.span<float>()[static_cast<std::size_t>(ix)]
                               : y.span<float>()[static_cast<std::size_t>(iy)]);
        }
        CHECK(values_of<float>(out) == want);
    }
    auto x = test::random_tensor({2}, 1);
    auto i = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    tensor c(dtype::boolean, {2});
    CHECK_THROWS_WITH_AS(
        invoke("where", {}, named_tensors{}.add("Condition", x).add("X", x).add("Y", x),
               {{"Out", 1}}),
        doctest::Contains("Condition must be bool, got float32"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("where", {}, named_tensors{}.add("Condition", c).add("X", x).add("Y", i),
               {{"Out", 1}}),
        doctest::Contains("X is float32 but Y is int32"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke(
            "where", {},
            named_tensors{}.add("Condition", c).add("X", x).add("Y", test::random_tensor({3}, 2)),
            {{"Out", 1}}),
        doctest::Contains("do not broadcast"), shape_error);
}

}  // namespace ops_makers_test
