// RangeSet and the sparse anonymous image.
#include "lib/io/blob.h"

#include <sys/mman.h>

#include <algorithm>

namespace abicheck {

void RangeSet::Add(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  std::vector<std::pair<uint64_t, uint64_t>> out;
  bool placed = false;
  for (const auto& [b, e] : ranges_) {
    if (e < begin || b > end) {
      if (!placed && b > end) {
        out.emplace_back(begin, end);
        placed = true;
      }
      out.emplace_back(b, e);
    } else {
      begin = std::min(begin, b);
      end = std::max(end, e);
    }
  }
  if (!placed) out.emplace_back(begin, end);
  std::sort(out.begin(), out.end());
  ranges_ = std::move(out);
}

bool RangeSet::Covers(uint64_t begin, uint64_t end) const {
  if (begin >= end) return true;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(begin, UINT64_MAX));
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= begin && end <= it->second;
}

uint64_t RangeSet::TotalBytes() const {
  uint64_t n = 0;
  for (const auto& [b, e] : ranges_) n += e - b;
  return n;
}

std::unique_ptr<SparseImage> SparseImage::Create(uint64_t size) {
  std::unique_ptr<SparseImage> img(new SparseImage());
  img->size_ = size;
  if (size == 0) return img;
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  img->data_ = static_cast<uint8_t*>(p);
  return img;
}

SparseImage::~SparseImage() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace abicheck
