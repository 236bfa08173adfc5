// classify_digit: reads a PNG or JPEG, converts it to a 28x28 grey image in
// [-1, 1] (as the model's training did), runs mlp_mnist_handwriting and prints
// the digit.  usage: classify_digit IMAGE [MODEL_DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "litegraph/paddle.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifndef LITEGRAPH_DEFAULT_DIGIT_MODEL
#define LITEGRAPH_DEFAULT_DIGIT_MODEL "../shared/models/mlp_mnist_handwriting"
#endif

namespace {

/// Grey 28x28 in [-1, 1]: luminance, then an area-average resize.
std::vector<float> to_mnist(const unsigned char* rgb, int w, int h) {
    std::vector<double> grey(static_cast<std::size_t>(w) * h);
    for (int i = 0; i < w * h; ++i)
        grey[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
    std::vector<float> out(28 * 28);
    for (int oy = 0; oy < 28; ++oy)
        for (int ox = 0; ox < 28; ++ox) {
            // Source rectangle [x0, x1) x [y0, y1) with fractional coverage.
            double x0 = ox * double(w) / 28, x1 = (ox + 1) * double(w) / 28;
            double y0 = oy * double(h) / 28, y1 = (oy + 1) * double(h) / 28;
            double sum = 0, area = 0;
            for (int y = int(y0); y < int(std::ceil(y1)) && y < h; ++y) {
                double cy = std::min(y1, y + 1.0) - std::max(y0, double(y));
                for (int x = int(x0); x < int(std::ceil(x1)) && x < w; ++x) {
                    double cx = std::min(x1, x + 1.0) - std::max(x0, double(x));
                    sum += cx * cy * grey[static_cast<std::size_t>(y) * w + x];
                    area += cx * cy;
                }
            }
            out[oy * 28 + ox] = static_cast<float>(sum / area / 255.0 * 2.0 - 1.0);
        }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::cerr
            << "usage: classify_digit IMAGE [MODEL_DIR]\n"
               "Prints the digit (0-9) that mlp_mnist_handwriting sees in IMAGE (PNG or JPEG).\n"
               "MODEL_DIR defaults to " LITEGRAPH_DEFAULT_DIGIT_MODEL "\n";
        return argc == 2 ? 0 : 2;
    }
    try {
        int w = 0, h = 0, channels = 0;
        std::unique_ptr<unsigned char, void (*)(void*)> img(
            stbi_load(argv[1], &w, &h, &channels, 3), stbi_image_free);
        if (!img) {
            std::cerr << "classify_digit: cannot read image " << argv[1] << ": "
                      << stbi_failure_reason() << "\n";
            return 1;
        }
        auto pixels = to_mnist(img.get(), w, h);
        // Loaded, fused and planned by the session; run by input name.
        litegraph::session s(argc == 3 ? argv[2] : LITEGRAPH_DEFAULT_DIGIT_MODEL);
        auto out = s.run(
            {{s.input_names().at(0), litegraph::tensor::from<float>({1, 1, 28, 28}, pixels)}});
        auto probs = out.at(s.output_names().at(0)).span<float>();
        if (probs.size() != 10) {
            std::cerr << "classify_digit: the model does not output 10 classes\n";
            return 1;
        }
        std::size_t best = 0;
        for (std::size_t i = 1; i < probs.size(); ++i)
            if (probs[i] > probs[best]) best = i;
        std::cout << best << "\n";
        std::cerr << "probability " << probs[best] << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "classify_digit: " << e.what() << "\n";
        return 1;
    }
}
