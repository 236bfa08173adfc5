#include "litegraph/core/npy.hpp"

#include <filesystem>
#include <fstream>

#include "support.hpp"

using namespace litegraph;

TEST_CASE("npy round trip keeps dtype, shape and values") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    auto f = test::random_tensor({2, 3, 5}, 3);
    save_npy(dir / "f.npy", f.ref());
    auto g = load_npy(dir / "f.npy");
    CHECK(g.type() == dtype::f32);
    CHECK(g.shape() == shape_t{2, 3, 5});
    CHECK(test::max_abs_diff(g.span<float>(), f.span<float>()) == 0);

    std::vector<std::int64_t> ids{4, -1, 9};
    auto t = tensor::from<std::int64_t>({3, 1}, ids);
    save_npy(dir / "i.npy", t.ref());
    auto u = load_npy(dir / "i.npy");
    CHECK(u.type() == dtype::i64);
    CHECK(u.shape() == shape_t{3, 1});
    CHECK(u.span<std::int64_t>()[1] == -1);
}

TEST_CASE("a broken .npy is an io_error naming the file") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "bad.npy") << "not an npy file at all";
    CHECK_THROWS_WITH_AS(load_npy(dir / "bad.npy"), doctest::Contains("bad.npy"), io_error);
    CHECK_THROWS_WITH_AS(load_npy(dir / "missing.npy"), doctest::Contains("missing.npy"), io_error);
}

namespace {

/// A .npy file (format 1.0) written byte by byte, as numpy writes it: `descr`
/// like "<f4", the header padded with spaces to a multiple of 64 bytes.
void write_npy(const std::filesystem::path& p, const std::string& descr, bool fortran,
               const std::string& shape, const void* data, std::size_t bytes) {
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    const auto len = static_cast<std::uint16_t>(header.size());
    out += static_cast<char>(len & 0xff);
    out += static_cast<char>(len >> 8);
    out += header;
    out.append(static_cast<const char*>(data), bytes);
    std::ofstream(p, std::ios::binary) << out;
}

}  // namespace

TEST_CASE("a Fortran-order .npy (numpy's layout for a transposed array) loads in C order") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    // A 2x3x4 array a[i][j][k] = 100 i + 10 j + k, stored column-major: the
    // first index moves fastest.
    std::vector<float> column_major;
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 2; ++i) column_major.push_back(float(100 * i + 10 * j + k));
    write_npy(dir / "fortran.npy", "<f4", true, "(2, 3, 4)", column_major.data(),
              column_major.size() * sizeof(float));
    auto t = load_npy(dir / "fortran.npy");
    CHECK(t.type() == dtype::f32);
    REQUIRE(t.shape() == shape_t{2, 3, 4});
    auto v = t.span<float>();
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k)
                CHECK(v[std::size_t((i * 3 + j) * 4 + k)] == float(100 * i + 10 * j + k));

    // int8, rank 2 (the transpose of a 3x2 C-order array), and the NCHW input
    // shape of ppocr_mobile_v2.0_cls with a batch of 2.
    std::vector<std::int8_t> q{1, 2, 3, 4, 5, 6};  // column-major [[1,3,5],[2,4,6]]
    write_npy(dir / "fortran_i8.npy", "|i1", true, "(2, 3)", q.data(), q.size());
    auto u = load_npy(dir / "fortran_i8.npy");
    REQUIRE(u.shape() == shape_t{2, 3});
    std::vector<std::int8_t> want{1, 3, 5, 2, 4, 6};
    CHECK(std::equal(want.begin(), want.end(), u.span<std::int8_t>().begin()));

    const shape_t nchw{2, 3, 48, 192};
    const auto n = std::size_t(numel(nchw));
    std::vector<float> f(n);
    for (std::size_t e = 0; e < n; ++e) f[e] = float(e);  // column-major element e
    write_npy(dir / "fortran_nchw.npy", "<f4", true, "(2, 3, 48, 192)", f.data(), n * 4);
    auto x = load_npy(dir / "fortran_nchw.npy");
    REQUIRE(x.shape() == nchw);
    auto xv = x.span<float>();
    // C-order (b, c, h, w) is column-major element b + 2 (c + 3 (h + 48 w)).
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t h = 0; h < 48; h += 7)
                for (std::size_t w = 0; w < 192; w += 13)
                    CHECK(xv[((b * 3 + c) * 48 + h) * 192 + w] ==
                          float(b + 2 * (c + 3 * (h + 48 * w))));

    // Rank 1 and 0: the same bytes in both orders.
    std::vector<float> line{1, 2, 3};
    write_npy(dir / "fortran_1d.npy", "<f4", true, "(3,)", line.data(), 12);
    auto l = load_npy(dir / "fortran_1d.npy");
    CHECK(l.shape() == shape_t{3});
    CHECK(l.span<float>()[2] == 3);
}

TEST_CASE("a .npy shorter than its header says, or with an absurd shape, is an io_error") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    std::vector<float> three{1, 2, 3};
    write_npy(dir / "short.npy", "<f4", false, "(4,)", three.data(), 12);
    CHECK_THROWS_WITH_AS(load_npy(dir / "short.npy"),
                         doctest::Contains("needs 16 data bytes, the file has 12"), io_error);
    // 2^62 elements: refused before anything is allocated.
    write_npy(dir / "huge.npy", "<f4", false, "(4611686018427387904,)", three.data(), 12);
    CHECK_THROWS_WITH_AS(load_npy(dir / "huge.npy"), doctest::Contains("huge.npy"), io_error);
    write_npy(dir / "b.npy", ">f4", false, "(3,)", three.data(), 12);
    CHECK_THROWS_WITH_AS(load_npy(dir / "b.npy"), doctest::Contains("unsupported .npy dtype"),
                         io_error);
}
