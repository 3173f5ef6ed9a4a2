// RangeSet and the sparse anonymous image.
#include "lib/io/blob.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

bool SparseImage::FillFrom(int fd, uint64_t offset, uint64_t at, uint64_t length) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t pages = (size_ + page - 1) / page * page;
  if (at > pages || length > pages - at) return false;
  if (length == 0) return true;
  struct stat st;
  if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < offset ||
      static_cast<uint64_t>(st.st_size) - offset < length)
    return false;
  if (at % page == 0 && offset % page == 0) {
    void* p = ::mmap(data_ + at, length, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd,
                     static_cast<off_t>(offset));
    if (p == data_ + at) return true;
    // Refused (the process's count of mappings, say): the range may have been unmapped, so it is
    // made anonymous again and read into.
    if (::mmap(data_ + at, length, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != data_ + at)
      return false;
  }
  for (uint64_t done = 0; done < length;) {
    const ssize_t n =
        ::pread(fd, data_ + at + done, length - done, static_cast<off_t>(offset + done));
    if (n <= 0) return false;
    done += static_cast<uint64_t>(n);
  }
  return true;
}

SparseImage::~SparseImage() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace abicheck
