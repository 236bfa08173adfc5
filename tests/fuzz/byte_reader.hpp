// The fuzz targets' reader of structured values from input bytes: what
// libFuzzer's FuzzedDataProvider does (integers in a range taken from the
// end of the data, so that a mutation of the front changes less), in a header
// of our own so that the regression test built by gcc reads the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace litegraph::fuzz {

class byte_reader {
public:
    byte_reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    std::size_t remaining_bytes() const { return size_; }

    /// An integer in [lo, hi]: as many bytes from the end as the range needs
    /// (0 when the data is exhausted, which gives lo).
    template <class T>
    T ConsumeIntegralInRange(T lo, T hi) {
        static_assert(std::is_integral_v<T>);
        if (lo >= hi) return lo;
        const auto range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
        std::uint64_t result = 0;
        std::size_t offset = 0;
        while (offset < sizeof(T) * 8 && (range >> offset) > 0 && size_ != 0) {
            --size_;
            result = (result << 8) | data_[size_];
            offset += 8;
        }
        if (range != std::numeric_limits<std::uint64_t>::max()) result %= range + 1;
        return static_cast<T>(static_cast<std::uint64_t>(lo) + result);
    }

    template <class T>
    T ConsumeIntegral() {
        return ConsumeIntegralInRange(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    }

    bool ConsumeBool() { return 1 & ConsumeIntegral<std::uint8_t>(); }

private:
    const std::uint8_t* data_;
    std::size_t size_;
};

}  // namespace litegraph::fuzz
