/// The `tiff:Orientation` an XMP packet states, in either of the forms
/// RDF allows: an attribute (`tiff:Orientation="6"`) or an element
/// (`<tiff:Orientation>6</tiff:Orientation>`).
enum XMPOrientation {
    /// The orientation 1…8 the packet states, or nil when it states none
    /// or one out of range. A plain byte search: the packet is not parsed
    /// as XML, and the `tiff` prefix is taken as the one XMP writers use.
    static func read(_ xmp: [UInt8]) -> Int? {
        let name = Array("tiff:Orientation".utf8)
        guard name.count <= xmp.count else { return nil }
        var i = 0
        while i + name.count <= xmp.count {
            guard xmp[i..<(i + name.count)].elementsEqual(name) else { i += 1; continue }
            var k = i + name.count
            i = k
            func skipSpace() { while k < xmp.count, [0x20, 0x09, 0x0A, 0x0D].contains(xmp[k]) { k += 1 } }
            skipSpace()
            guard k < xmp.count else { return nil }
            if xmp[k] == UInt8(ascii: "=") {  // attribute
                k += 1
                skipSpace()
                guard k < xmp.count, xmp[k] == UInt8(ascii: "\"") || xmp[k] == UInt8(ascii: "'") else { continue }
                k += 1
            } else if xmp[k] == UInt8(ascii: ">") {  // element
                k += 1
                skipSpace()
            } else {
                continue  // e.g. tiff:OrientationX, or a closing tag
            }
            guard k < xmp.count, (UInt8(ascii: "1")...UInt8(ascii: "8")).contains(xmp[k]) else { return nil }
            let value = Int(xmp[k] - UInt8(ascii: "0"))
            let next = k + 1 < xmp.count ? xmp[k + 1] : 0
            return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) ? nil : value
        }
        return nil
    }
}
