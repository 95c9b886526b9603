//! What the Redfish unit tests share (they cannot reach `tests/it/common`).

/// The head of the next HTTP request on `stream` (up to its blank line), as the test servers
/// of the Redfish client read it; what came when the peer closes early.
pub(crate) async fn request_head(stream: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt as _;
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0];
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            break;
        }
        head.push(byte[0]);
    }
    head
}
