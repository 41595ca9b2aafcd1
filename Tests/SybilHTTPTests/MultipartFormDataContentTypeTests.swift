import SybilHTTP
import Testing

/// The Content-Type a `MultipartFormData` announces must name its boundary so that a parser
/// (ours included) reads the same boundary back. Found by fuzzing: a boundary with a space or
/// parentheses went out unquoted and the parser refused it.
@Suite("Multipart form-data Content-Type", .timeLimit(.minutes(2)))
struct MultipartFormDataContentTypeTests {
    @Test(
        "every valid boundary survives the Content-Type round trip, quoted only when it is not a token",
        arguments: [
            ("XyZ", "multipart/form-data; boundary=XyZ"),
            (
                "----WebKitFormBoundary7MA4YWxkTrZu0gW",
                "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW"
            ),
            ("a (b) c", "multipart/form-data; boundary=\"a (b) c\""),
            ("x:y=z?", "multipart/form-data; boundary=\"x:y=z?\""),
            ("'+_,-./", "multipart/form-data; boundary=\"'+_,-./\""),
        ])
    func contentTypeNamesTheBoundary(boundary: String, contentType: String) throws {
        let form = MultipartFormData(boundary: boundary, parts: [.init(name: "a", body: Array("v".utf8))])
        #expect(form.contentType == contentType)
        #expect(try MultipartFormDataParser.boundary(ofContentType: form.contentType) == boundary)
        let parts = try MultipartFormDataParser.parse(
            form.encoded(), contentType: form.contentType,
            limits: .init(maxParts: 4, maxPartBytes: 1_024, maxBodyBytes: 4_096))
        #expect(parts == form.parts)
    }
}
