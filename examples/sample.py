"""A small module that seam's demo completes in."""
import os


def read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


class Counter:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, word: str) -> None:
        self.counts[word] = self.counts.get(word, 0) + 1

    def most_common(self, n: int = 3) -> list[tuple[str, int]]:
        return sorted(self.counts.items(), key=lambda item: -item[1])[:n]


if __name__ == "__main__":
    counter = Counter()
    for line in read_lines(os.environ.get("SAMPLE", __file__)):
        for word in line.split():
            counter.add(word)
    print(counter.most_common())
