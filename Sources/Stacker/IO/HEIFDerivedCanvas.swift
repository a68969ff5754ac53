/// The canvas sizes of a HEIF file's derived images (`grid` and `iovl`
/// items), read from the file's boxes without libheif, and the check that
/// keeps a crafted canvas from being allocated.
///
/// libheif 1.15 sizes a grid's or overlay's output from the item's own data
/// (`output_width` × `output_height`), while the size it announces for the
/// image, and the one `HEIFCodec` checks against `--max-pixels`, comes from
/// the item's `ispe` property. The two must be equal (ISO/IEC 23008-12); a
/// file of a few hundred bytes that declares an 8 × 8 `ispe` and a
/// 28005 × 29793 grid made libheif allocate 4.9 GB before failing. So every
/// derived image's canvas must fit within its `ispe`.
///
/// The parse is bounds-checked everywhere: a box it cannot follow ends the
/// walk without an error (libheif then reports what is wrong with the file),
/// so the check can only refuse files whose boxes say, readably, that a
/// canvas is larger than its image.
enum HEIFDerivedCanvas {
    /// One derived image: its item ID, type (`grid` or `iovl`), the canvas
    /// its data declares, and its `ispe` size (nil when it has none).
    struct Item {
        let id: UInt32
        let type: String
        let canvas: (width: Int, height: Int)
        let declared: (width: Int, height: Int)?
    }

    /// Refuses a file in which a derived image's canvas holds more pixels
    /// than its `ispe` announces, or has no `ispe` at all.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func check<Bytes: RandomAccessCollection>(_ bytes: Bytes, path: String) throws
    where Bytes.Element == UInt8, Bytes.Index == Int {
        for item in items(bytes) {
            let (w, h) = item.canvas
            guard let declared = item.declared else {
                throw StackerError.unreadable(path: path, reason: "HEIF \(item.type) item \(item.id) declares a \(w)×\(h) canvas but no image size (ispe)")
            }
            let (area, overflow) = w.multipliedReportingOverflow(by: h)
            let (bound, boundOverflow) = declared.width.multipliedReportingOverflow(by: declared.height)
            if overflow || (!boundOverflow && area > bound) {
                throw StackerError.unreadable(path: path, reason: "HEIF \(item.type) item \(item.id) declares a \(w)×\(h) canvas for a \(declared.width)×\(declared.height) image")
            }
        }
    }

    /// The file's derived images, in item order; empty when the file has no
    /// `meta` box or its boxes cannot be followed.
    static func items<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> [Item]
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let reader = BoxReader(bytes: bytes)
        guard let meta = reader.children(of: bytes.startIndex..<bytes.endIndex).first(where: { $0.type == "meta" }) else { return [] }
        var types: [UInt32: String] = [:]
        var locations: [UInt32: Location] = [:]
        var idat: Range<Int>?
        var properties: [Box] = []
        var associations: [UInt32: [Int]] = [:]
        // `meta` is a full box: 4 bytes of version and flags first.
        for box in reader.children(of: (meta.payload.lowerBound + 4)..<meta.payload.upperBound) {
            switch box.type {
            case "iinf": types = reader.itemTypes(box)
            case "iloc": locations = reader.locations(box)
            case "idat": idat = box.payload
            case "iprp":
                for child in reader.children(of: box.payload) {
                    if child.type == "ipco" { properties = reader.children(of: child.payload) }
                    if child.type == "ipma" { associations = reader.associations(child) }
                }
            default: break
            }
        }
        var result: [Item] = []
        for (id, type) in types.sorted(by: { $0.key < $1.key }) where type == "grid" || type == "iovl" {
            guard let location = locations[id] else { continue }
            let start: Int
            switch location.method {
            case 0: start = bytes.startIndex + location.offset
            case 1:
                guard let idat else { continue }
                start = idat.lowerBound + location.offset
            default: continue
            }
            guard location.offset >= 0, start >= bytes.startIndex,
                  let canvas = reader.canvas(type: type, at: start) else { continue }
            let declared = associations[id, default: []].lazy.compactMap { index -> (width: Int, height: Int)? in
                guard index >= 1, index <= properties.count, properties[index - 1].type == "ispe" else { return nil }
                let p = properties[index - 1].payload.lowerBound
                guard let w = reader.uint(at: p + 4, size: 4), let h = reader.uint(at: p + 8, size: 4) else { return nil }
                return (w, h)
            }.first
            result.append(Item(id: id, type: type, canvas: canvas, declared: declared))
        }
        return result
    }

    /// Where an item's data starts: `method` 0 is a file offset, 1 an offset
    /// into `idat`, 2 another item (not followed).
    struct Location { let method: Int; let offset: Int }

    /// One box: its four-character type and the byte range after its header.
    struct Box { let type: String; let payload: Range<Int> }

    /// Bounds-checked big-endian reads and box walks over the file's bytes.
    struct BoxReader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes: Bytes

        /// The unsigned big-endian integer of `size` bytes at `at`, or nil
        /// past the end (sizes up to 8 bytes; larger values than `Int.max`
        /// are nil).
        func uint(at: Int, size: Int) -> Int? {
            guard size >= 0, size <= 8, at >= bytes.startIndex, at <= bytes.endIndex - size else { return nil }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }

        /// The boxes laid end to end in `range`; stops at the first box
        /// whose size does not fit.
        func children(of range: Range<Int>) -> [Box] {
            var boxes: [Box] = []
            var at = range.lowerBound
            while at + 8 <= range.upperBound, boxes.count < 100_000 {
                guard var size = uint(at: at, size: 4) else { break }
                var header = 8
                if size == 1 {
                    guard let large = uint(at: at + 8, size: 8) else { break }
                    size = large
                    header = 16
                } else if size == 0 {
                    size = range.upperBound - at
                }
                guard size >= header, size <= range.upperBound - at else { break }
                let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                boxes.append(Box(type: type, payload: (at + header)..<(at + size)))
                at += size
            }
            return boxes
        }

        /// Item ID → item type from `iinf`'s `infe` boxes (versions 2 and 3;
        /// older ones carry no type).
        func itemTypes(_ iinf: Box) -> [UInt32: String] {
            guard let version = uint(at: iinf.payload.lowerBound, size: 1) else { return [:] }
            let first = iinf.payload.lowerBound + 4 + (version == 0 ? 2 : 4)
            guard first <= iinf.payload.upperBound else { return [:] }
            var types: [UInt32: String] = [:]
            for infe in children(of: first..<iinf.payload.upperBound) where infe.type == "infe" {
                let p = infe.payload.lowerBound
                guard let v = uint(at: p, size: 1), v >= 2 else { continue }
                let idSize = v == 2 ? 2 : 4
                guard let id = uint(at: p + 4, size: idSize),
                      p + 4 + idSize + 6 <= infe.payload.upperBound else { continue }
                let typeStart = p + 4 + idSize + 2
                types[UInt32(truncatingIfNeeded: id)] = String(decoding: bytes[typeStart..<(typeStart + 4)], as: UTF8.self)
            }
            return types
        }

        /// Item ID → where its first extent starts, from `iloc`.
        func locations(_ iloc: Box) -> [UInt32: Location] {
            var p = iloc.payload.lowerBound
            guard let version = uint(at: p, size: 1), version <= 2,
                  let sizes = uint(at: p + 4, size: 2) else { return [:] }
            let offsetSize = sizes >> 12 & 15, lengthSize = sizes >> 8 & 15
            let baseSize = sizes >> 4 & 15, indexSize = version == 0 ? 0 : sizes & 15
            p += 6
            let countSize = version < 2 ? 2 : 4
            guard let count = uint(at: p, size: countSize) else { return [:] }
            p += countSize
            var result: [UInt32: Location] = [:]
            for _ in 0..<min(count, 1 << 20) {
                let idSize = version < 2 ? 2 : 4
                guard let id = uint(at: p, size: idSize) else { break }
                p += idSize
                var method = 0
                if version >= 1 {
                    guard let m = uint(at: p, size: 2) else { break }
                    method = m & 15
                    p += 2
                }
                p += 2  // data_reference_index
                guard let base = uint(at: p, size: baseSize) else { break }
                p += baseSize
                guard let extents = uint(at: p, size: 2) else { break }
                p += 2
                var first: Int?
                for _ in 0..<extents {
                    p += indexSize
                    guard let offset = uint(at: p, size: offsetSize) else { return result }
                    p += offsetSize + lengthSize
                    if first == nil { first = offset }
                }
                guard p <= iloc.payload.upperBound else { break }
                if let first {
                    let (sum, overflow) = base.addingReportingOverflow(first)
                    if !overflow { result[UInt32(truncatingIfNeeded: id)] = Location(method: method, offset: sum) }
                }
            }
            return result
        }

        /// Item ID → its 1-based `ipco` property indices, from `ipma`.
        func associations(_ ipma: Box) -> [UInt32: [Int]] {
            var p = ipma.payload.lowerBound
            guard let version = uint(at: p, size: 1), let flags = uint(at: p + 1, size: 3),
                  let count = uint(at: p + 4, size: 4) else { return [:] }
            p += 8
            let idSize = version < 1 ? 2 : 4
            let indexSize = flags & 1 == 1 ? 2 : 1
            var result: [UInt32: [Int]] = [:]
            for _ in 0..<min(count, 1 << 20) {
                guard let id = uint(at: p, size: idSize), let n = uint(at: p + idSize, size: 1) else { break }
                p += idSize + 1
                var indices: [Int] = []
                for _ in 0..<n {
                    guard let raw = uint(at: p, size: indexSize) else { return result }
                    indices.append(raw & (indexSize == 2 ? 0x7fff : 0x7f))
                    p += indexSize
                }
                result[UInt32(truncatingIfNeeded: id), default: []] += indices
            }
            return result
        }

        /// The output size in a `grid` or `iovl` item's data at `at`:
        /// version, flags (bit 0: 32-bit sizes), then for a grid the rows
        /// and columns, for an overlay four 16-bit fill values, then width
        /// and height.
        func canvas(type: String, at: Int) -> (width: Int, height: Int)? {
            guard let flags = uint(at: at + 1, size: 1) else { return nil }
            let size = flags & 1 == 1 ? 4 : 2
            let start = at + (type == "grid" ? 4 : 10)
            guard let width = uint(at: start, size: size), let height = uint(at: start + size, size: size) else { return nil }
            return (width, height)
        }
    }
}
