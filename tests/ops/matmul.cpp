#include "litegraph/ops/matmul.hpp"

#include <cmath>
#include <cstring>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_matmul_test {

namespace {
// Naive numpy-style matmul of >= 2-D operands in double: batch dims broadcast
// (right-aligned), element (i, j) = sum_k op(x)[i,k] * op(y)[k,j].
std::vector<float> baseline(const tensor& x, shape_t xs, const tensor& y, shape_t ys, bool tx,
                            bool ty, double alpha = 1) {
    const std::size_t nb = std::max(xs.size(), ys.size()) - 2;
    while (xs.size() < nb + 2) xs.insert(xs.begin(), 1);
    while (ys.size() < nb + 2) ys.insert(ys.begin(), 1);
    const std::int64_t M = tx ? xs[nb + 1] : xs[nb], K = tx ? xs[nb] : xs[nb + 1];
    const std::int64_t N = ty ? ys[nb] : ys[nb + 1];
    shape_t ob(nb);
    for (std::size_t i = 0; i < nb; ++i) ob[i] = std::max(xs[i], ys[i]);
    const std::int64_t B = numel(ob);
    auto xv = x.span<float>();
    auto yv = y.span<float>();
    std::vector<float> out(static_cast<std::size_t>(B * M * N));
    for (std::int64_t b = 0; b < B; ++b) {
        std::int64_t rem = b, xb = 0, yb = 0, xm = 1, ym = 1;
        for (std::size_t d = nb; d-- > 0;) {
            std::int64_t i = rem % ob[d];
            rem /= ob[d];
            xb += (xs[d] == 1 ? 0 : i) * xm;
            yb += (ys[d] == 1 ? 0 : i) * ym;
            xm *= xs[d];
            ym *= ys[d];
        }
        for (std::int64_t i = 0; i < M; ++i)
            for (std::int64_t j = 0; j < N; ++j) {
                double acc = 0;
                for (std::int64_t k = 0; k < K; ++k) {
                    double a =
                        xv[static_cast<std::size_t>(xb * M * K + (tx ? k * M + i : i * K + k))];
                    double c =
                        yv[static_cast<std::size_t>(yb * K * N + (ty ? j * K + k : k * N + j))];
                    acc += a * c;
                }
                out[static_cast<std::size_t>((b * M + i) * N + j)] =
                    static_cast<float>(alpha * acc);
            }
    }
    return out;
}

struct mcase {
    shape_t x, y;
    bool tx, ty;
    shape_t out;
};
}  // namespace

TEST_CASE("matmul_v2 with batch broadcasting and 1-D operands") {
    const mcase cases[] = {
        {{3, 4}, {4, 5}, false, false, {3, 5}},
        {{4, 3}, {4, 5}, true, false, {3, 5}},
        {{3, 4}, {5, 4}, false, true, {3, 5}},
        {{4, 3}, {5, 4}, true, true, {3, 5}},
        {{2, 3, 4}, {4, 5}, false, false, {2, 3, 5}},
        {{3, 4}, {2, 4, 5}, false, false, {2, 3, 5}},
        {{2, 1, 3, 4}, {5, 4, 6}, false, false, {2, 5, 3, 6}},
        {{2, 1, 4, 3}, {1, 3, 6, 4}, true, true, {2, 3, 3, 6}},
        {{4}, {4}, false, false, {1}},
        {{4}, {2, 4, 5}, true, false, {2, 5}},
        {{4}, {2, 5, 4}, false, true, {2, 5}},
        {{2, 3, 4}, {4}, false, true, {2, 3}},
        {{2, 4, 3}, {4}, true, false, {2, 3}},
    };
    std::uint32_t seed = 21;
    for (auto& c : cases) {
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.y));
        CAPTURE(c.tx);
        CAPTURE(c.ty);
        auto x = test::random_tensor(c.x, seed++);
        auto y = test::random_tensor(c.y, seed++);
        attr_map a;
        a.set("trans_x", c.tx);
        a.set("trans_y", c.ty);
        auto out = invoke("matmul_v2", a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}})
                       .get("Out");
        REQUIRE(out.shape() == c.out);
        // 1-D operands: a row [1,K] / a column [K,1], their transpose flag ignored.
        shape_t xs = c.x.size() == 1 ? shape_t{1, c.x[0]} : c.x;
        shape_t ys = c.y.size() == 1 ? shape_t{c.y[0], 1} : c.y;
        auto expect = baseline(x, xs, y, ys, c.x.size() > 1 && c.tx, c.y.size() > 1 && c.ty);
        CHECK(test::max_abs_diff(out.span<float>(), expect) < 1e-5);
    }
}

TEST_CASE("matmul (v1): transposes, alpha, batch by product, 1-D cases") {
    const mcase cases[] = {
        {{3, 4}, {4, 5}, false, false, {3, 5}},
        {{4, 3}, {5, 4}, true, true, {3, 5}},
        {{2, 3, 4}, {2, 4, 5}, false, false, {2, 3, 5}},
        {{2, 3, 4}, {4, 5}, false, false, {2, 3, 5}},
        {{4, 3}, {2, 5, 4}, true, true, {2, 3, 5}},
        {{2, 2, 3, 4}, {2, 2, 4, 5}, false, false, {2, 2, 3, 5}},
        {{4}, {4}, false, false, {1}},
        {{4}, {4, 5}, false, false, {5}},
        {{3, 4}, {4}, false, false, {3}},
    };
    std::uint32_t seed = 41;
    for (float alpha : {1.f, 0.5f})
        for (auto& c : cases) {
            CAPTURE(to_string(c.x));
            CAPTURE(to_string(c.y));
            auto x = test::random_tensor(c.x, seed++);
            auto y = test::random_tensor(c.y, seed++);
            attr_map a;
            a.set("transpose_X", c.tx);
            a.set("transpose_Y", c.ty);
            a.set("alpha", alpha);
            auto out = invoke("matmul", a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}})
                           .get("Out");
            REQUIRE(out.shape() == c.out);
            shape_t xs = c.x.size() == 1 ? shape_t{1, c.x[0]} : c.x;
            shape_t ys = c.y.size() == 1 ? shape_t{c.y[0], 1} : c.y;
            auto expect = baseline(x, xs, y, ys, c.tx, c.ty, alpha);
            CHECK(test::max_abs_diff(out.span<float>(), expect) < 1e-5);
        }
}

TEST_CASE("mul flattens at x_num_col_dims and y_num_col_dims") {
    struct ccase {
        shape_t x, y;
        int xc, yc;
        shape_t out;
        std::int64_t M, K, N;
    };
    const ccase cases[] = {
        {{3, 4}, {4, 5}, 1, 1, {3, 5}, 3, 4, 5},
        {{2, 3, 4}, {12, 5}, 1, 1, {2, 5}, 2, 12, 5},
        {{2, 3, 4}, {4, 5}, 2, 1, {2, 3, 5}, 6, 4, 5},
        {{2, 3, 4}, {3, 4, 2, 3}, 1, 2, {2, 2, 3}, 2, 12, 6},
    };
    std::uint32_t seed = 61;
    for (auto& c : cases) {
        CAPTURE(to_string(c.x));
        auto x = test::random_tensor(c.x, seed++);
        auto y = test::random_tensor(c.y, seed++);
        attr_map a;
        a.set("x_num_col_dims", c.xc);
        a.set("y_num_col_dims", c.yc);
        auto out =
            invoke("mul", a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
        REQUIRE(out.shape() == c.out);
        auto expect = baseline(x, {c.M, c.K}, y, {c.K, c.N}, false, false);
        CHECK(test::max_abs_diff(out.span<float>(), expect) < 1e-5);
    }
}

TEST_CASE("mul, matmul and matmul_v2 on the SGEMM / GEMV: odd shapes, 1 and 3 threads alike") {
    // The desktop kernel (kernels/fc.hpp) against the double baseline, on
    // shapes off the vector width and tiles, K = 1, one row (the GEMV), batch
    // broadcasting, transposes and alpha; 3 threads split columns, rows or
    // batches and must give the bits of one.
    struct fcase {
        const char* type;
        shape_t x, y;
        bool tx, ty;
        float alpha;
    };
    const fcase cases[] = {
        {"mul", {64, 1024}, {1024, 1000}, false, false, 1.f},
        {"mul", {1, 1024}, {1024, 1300}, false, false, 1.f},
        {"mul", {37, 1}, {1, 2051}, false, false, 1.f},
        {"mul", {131, 70}, {70, 45}, false, false, 1.f},
        {"matmul", {300, 7}, {13, 300}, true, true, -0.5f},
        {"matmul", {1, 333}, {1500, 333}, false, true, 2.f},
        {"matmul", {3, 29, 17}, {17, 1100}, false, false, 0.25f},
        {"matmul_v2", {3, 1, 5, 70}, {4, 70, 600}, false, false, 1.f},
        {"matmul_v2", {2, 70, 5}, {2, 600, 70}, true, true, 1.f},
        {"matmul_v2", {6, 1, 333}, {6, 333, 1029}, false, false, 1.f},
        {"matmul_v2", {5, 40, 33}, {1025, 33}, false, true, 1.f},
    };
    thread_pool pool(3);
    std::uint32_t seed = 81;
    for (auto& c : cases) {
        CAPTURE(c.type);
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.y));
        auto x = test::random_tensor(c.x, seed++);
        auto y = test::random_tensor(c.y, seed++);
        attr_map a;
        const std::string type = c.type;
        if (type == "matmul") {
            a.set("transpose_X", c.tx);
            a.set("transpose_Y", c.ty);
            a.set("alpha", c.alpha);
        } else if (type == "matmul_v2") {
            a.set("trans_x", c.tx);
            a.set("trans_y", c.ty);
        }
        const auto in = named_tensors{}.add("X", x).add("Y", y);
        auto one = invoke(type, a, in, {{"Out", 1}}).get("Out");
        auto three = invoke(type, a, in, {{"Out", 1}}, &pool).get("Out");
        auto expect = baseline(x, c.x, y, c.y, c.tx, c.ty, c.alpha);
        const std::int64_t K = c.tx ? c.x[c.x.size() - 2] : c.x.back();
        CHECK(test::max_abs_diff(one.span<float>(), expect) < 1e-5 * std::sqrt(double(K)));
        REQUIRE(three.shape() == one.shape());
        CHECK(std::memcmp(three.data(), one.data(), static_cast<std::size_t>(one.bytes())) == 0);
    }
}

TEST_CASE("matmul shape errors name the operands") {
    auto x = test::random_tensor({3, 4}, 1);
    auto y = test::random_tensor({5, 6}, 2);
    for (const char* type : {"mul", "matmul", "matmul_v2"})
        CHECK_THROWS_AS(invoke(type, {}, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}),
                        shape_error);
    CHECK_THROWS_WITH_AS(invoke("matmul_v2", {},
                                named_tensors{}
                                    .add("X", test::random_tensor({2, 3, 4}, 1))
                                    .add("Y", test::random_tensor({3, 4, 5}, 2)),
                                {{"Out", 1}}),
                         doctest::Contains("do not broadcast"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("matmul", {},
                                named_tensors{}
                                    .add("X", test::random_tensor({2, 3, 4}, 1))
                                    .add("Y", test::random_tensor({3, 4, 5}, 2)),
                                {{"Out", 1}}),
                         doctest::Contains("batch sizes"), shape_error);
}

}  // namespace ops_matmul_test
