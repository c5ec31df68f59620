#!/usr/bin/env bash
# seeds.sh - writes the fuzzers' seed corpora into the folder $1:
# in $1/idx, small IDX files of labels and of images, plain and
# gzip-compressed, a pair for the pair loader (the first byte says where
# the images end), and a few near misses (a file compressed twice, one
# with a float type); in $1/npz, the .npz file NumPy wrote that
# test_npz reads (tests/common/npz_numpy_fixture.h) and the empty
# archive; in $1/image, the PNG and JPEG files test_image reads
# (tests/common/image_fixtures.h).
set -eu
out=$1/idx
mkdir -p "$out" "$1/npz" "$1/image"
labels='\x00\x00\x08\x01\x00\x00\x00\x0a'
labels+='\x05\x00\x04\x01\x09\x02\x01\x03\x01\x04'
images='\x00\x00\x08\x03\x00\x00\x00\x02\x00\x00\x00\x04\x00\x00\x00\x04'
for i in $(seq 1 32); do images+='\x'$(printf '%02x' $((i * 7 % 256))); done
pair_images='\x00\x00\x08\x03\x00\x00\x00\x02'
pair_images+='\x00\x00\x00\x01\x00\x00\x00\x01\x10\x20'
pair_labels='\x00\x00\x08\x01\x00\x00\x00\x02\x07\x02'
printf "$labels" > "$out/labels"
printf "$labels" | gzip -9n > "$out/labels.gz"
printf "$images" > "$out/images"
printf "$images" | gzip -1n > "$out/images.gz"
printf "$images" | gzip -n | gzip -n > "$out/twice.gz"
printf "$images" | sed 's/^\x00\x00\x08/\x00\x00\x0d/' > "$out/floats"
# 0xaa: the images end at byte 1 + 28 * 0xaa / 255 = 19 of the 29
printf "\xaa$pair_images$pair_labels" > "$out/pair"

fixture=$(dirname "$0")/../common/npz_numpy_fixture.h
printf "$(sed -n 's/ *0x\([0-9a-f][0-9a-f]\),*/\\x\1/gp' "$fixture" |
    tr -d '\n')" > "$1/npz/numpy_wrote.npz"
{ printf 'PK\x05\x06'; head -c 18 /dev/zero; } > "$1/npz/empty.npz"

# The bytes of the array $2 of the C header $1, into the file $3.
array_bytes() {
    local hex='s/ *0x\([0-9a-f][0-9a-f]\),*/\\x\1/gp'
    printf "$(sed -n "/ $2\\[/,/^};/$hex" "$1" | tr -d '\n')" > "$3"
}
pictures=$(dirname "$0")/../common/image_fixtures.h
for name in png jpg progressive_jpg grey_png palette_png rgba_png \
        grey16_png; do
    array_bytes "$pictures" "fixture_$name" "$1/image/$name"
done
