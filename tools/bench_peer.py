"""tools/bench_peer.py PATH - the Python peer of tools/bench.

What huggingface_hub's get_safetensors_metadata does, on local files: find
the shards (model.safetensors.index.json's weight_map, or the one file), and
for each read the 8-byte header length and the header, json.loads it, and
sum the products of the shapes per dtype. Standard library only; prints the
tensor and parameter counts so the work cannot be skipped.
"""
import json
import os
import struct
import sys


def shards(path):
    if os.path.isfile(path):
        return [path]
    index = os.path.join(path, "model.safetensors.index.json")
    if os.path.isfile(index):
        with open(index, "rb") as f:
            weight_map = json.loads(f.read())["weight_map"]
        return [os.path.join(path, name) for name in sorted(set(weight_map.values()))]
    return [os.path.join(path, "model.safetensors")]


def header(file):
    with open(file, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(length))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_peer.py FILE|DIR")
    tensors = 0
    per_dtype = {}
    for file in shards(sys.argv[1]):
        for name, info in header(file).items():
            if name == "__metadata__":
                continue
            count = 1
            for dim in info["shape"]:
                count *= dim
            per_dtype[info["dtype"]] = per_dtype.get(info["dtype"], 0) + count
            tensors += 1
    print(f"tensors {tensors} parameters {sum(per_dtype.values())} {per_dtype}")


if __name__ == "__main__":
    main()
