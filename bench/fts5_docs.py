"""The documents of bench/fts5_timing.py (the same seed and vocabulary),
N of them, written to a file as title TAB body per line, for
bench/fts5_build_driver.c: python3 bench/fts5_docs.py N FILE."""
import random, sys
n = int(sys.argv[1])
rng = random.Random(20)
letters = "abcdefghijklmnopqrstuvwxyz"
vocab = []; seen = set()
while len(vocab) < 20000:
    w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
    if w not in seen and w not in ("and", "or", "not", "near"):
        seen.add(w); vocab.append(w)
cum = []; acc = 0.0
for k in range(len(vocab)):
    acc += 1.0/(k+1); cum.append(acc)
def words(k): return rng.choices(vocab, cum_weights=cum, k=k)
with open(sys.argv[2], "w") as f:
    for i in range(1, n+1):
        title = " ".join(words(rng.randint(3, 8)))
        body = " ".join(words(rng.randint(50, 200)))
        f.write(f"{title}\t{body}\n")
