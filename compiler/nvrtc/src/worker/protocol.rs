//! The bytes a worker and its parent exchange over the worker's standard input and output: one request (the
//! library to load, the CUDA C, NVRTC's arguments) and one reply (NVRTC's version, log, PTX, CUBIN) per
//! compilation, any number of them; closing the worker's input ends it at once, answered or not. Every field is a little-endian `u64` length followed by that many bytes; a frame starts with a
//! magic that names the protocol's version, so a worker of another skc version is refused, not misread.

use std::io::{self, Read, Write};
use std::path::PathBuf;

/// First bytes of every request and reply. Bump the digit when the layout changes.
pub const MAGIC: &[u8; 8] = b"skcnvrt1";

/// No field is this large (a CUDA C translation unit or a CUBIN of a gigabyte is not something skc writes): a
/// larger length means the stream is not ours.
const MAX_FIELD_BYTES: u64 = 1 << 30;
const MAX_ARGS: u64 = 4096;

/// One compilation asked of a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The libnvrtc file the parent loaded (so both agree on NVRTC's version, which keys the cache); `None`:
    /// the worker searches as `LibrarySearch::from_env` does.
    pub library: Option<PathBuf>,
    pub program_name: String,
    pub cuda_source: String,
    pub args: Vec<String>,
    pub want_cubin: bool,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// NVRTC ran: `succeeded` is false when it rejected the program (`log` says why).
    Compiled { nvrtc_version: (i32, i32), succeeded: bool, log: String, ptx: String, cubin: Vec<u8> },
    /// Something other than the program failed (NVRTC not loadable, an API error): the error's text.
    Failed { message: String },
}

fn write_field(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&(bytes.len() as u64).to_le_bytes())?;
    out.write_all(bytes)
}

fn read_u64(input: &mut impl Read) -> io::Result<u64> {
    let mut buf = [0u8; 8];
    input.read_exact(&mut buf)?;
    Ok(u64::from_le_bytes(buf))
}

fn read_field(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let len = read_u64(input)?;
    if len > MAX_FIELD_BYTES {
        return Err(invalid(format!("a field of {len} bytes")));
    }
    let mut bytes = vec![0u8; len as usize];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_text(input: &mut impl Read) -> io::Result<String> {
    String::from_utf8(read_field(input)?).map_err(|_| invalid("a text field that is not UTF-8".into()))
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("not an skc NVRTC worker stream: {what}"))
}

/// Reads the magic; `Ok(false)` at a clean end of stream (the parent closed the pipe: no more requests).
fn read_magic(input: &mut impl Read) -> io::Result<bool> {
    let mut buf = [0u8; 8];
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..])? {
            0 if filled == 0 => return Ok(false),
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => filled += n,
        }
    }
    if &buf != MAGIC {
        return Err(invalid(format!("the magic {:?}", String::from_utf8_lossy(&buf))));
    }
    Ok(true)
}

impl Request {
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(MAGIC)?;
        let library = self.library.as_ref().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        write_field(out, library.as_bytes())?;
        write_field(out, self.program_name.as_bytes())?;
        write_field(out, self.cuda_source.as_bytes())?;
        write_field(out, &[u8::from(self.want_cubin)])?;
        out.write_all(&(self.args.len() as u64).to_le_bytes())?;
        for arg in &self.args {
            write_field(out, arg.as_bytes())?;
        }
        out.flush()
    }

    /// The next request, or `None` when the parent has closed the stream.
    pub fn read(input: &mut impl Read) -> io::Result<Option<Request>> {
        if !read_magic(input)? {
            return Ok(None);
        }
        let library = read_text(input)?;
        let program_name = read_text(input)?;
        let cuda_source = read_text(input)?;
        let want_cubin = read_field(input)? == [1];
        let count = read_u64(input)?;
        if count > MAX_ARGS {
            return Err(invalid(format!("{count} arguments")));
        }
        let args = (0..count).map(|_| read_text(input)).collect::<io::Result<Vec<String>>>()?;
        let library = (!library.is_empty()).then(|| PathBuf::from(library));
        Ok(Some(Request { library, program_name, cuda_source, args, want_cubin }))
    }
}

impl Reply {
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(MAGIC)?;
        match self {
            Reply::Compiled { nvrtc_version, succeeded, log, ptx, cubin } => {
                write_field(out, if *succeeded { b"ok" } else { b"rejected" })?;
                write_field(out, format!("{}.{}", nvrtc_version.0, nvrtc_version.1).as_bytes())?;
                write_field(out, log.as_bytes())?;
                write_field(out, ptx.as_bytes())?;
                write_field(out, cubin)?;
            }
            Reply::Failed { message } => {
                write_field(out, b"failed")?;
                write_field(out, message.as_bytes())?;
            }
        }
        out.flush()
    }

    /// The reply; an end of stream before it is an `UnexpectedEof` error (the worker died).
    pub fn read(input: &mut impl Read) -> io::Result<Reply> {
        if !read_magic(input)? {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let status = read_text(input)?;
        if status == "failed" {
            return Ok(Reply::Failed { message: read_text(input)? });
        }
        let succeeded = match status.as_str() {
            "ok" => true,
            "rejected" => false,
            other => return Err(invalid(format!("the status {other:?}"))),
        };
        let version = read_text(input)?;
        let nvrtc_version = parse_version(&version).ok_or_else(|| invalid(format!("the version {version:?}")))?;
        let log = read_text(input)?;
        let ptx = read_text(input)?;
        let cubin = read_field(input)?;
        Ok(Reply::Compiled { nvrtc_version, succeeded, log, ptx, cubin })
    }
}

fn parse_version(text: &str) -> Option<(i32, i32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> Request {
        Request {
            library: Some(PathBuf::from("/opt/nvrtc/libnvrtc.so.13")),
            program_name: "k.cu".into(),
            cuda_source: "extern \"C\" __global__ void k() {}".into(),
            args: vec!["--gpu-architecture=sm_90".into(), "-std=c++17".into()],
            want_cubin: true,
        }
    }

    #[test]
    fn requests_and_replies_round_trip() {
        let mut bytes = Vec::new();
        request().write(&mut bytes).unwrap();
        let no_library = Request { library: None, want_cubin: false, args: vec![], ..request() };
        no_library.write(&mut bytes).unwrap();
        let mut input = bytes.as_slice();
        assert_eq!(Request::read(&mut input).unwrap(), Some(request()));
        assert_eq!(Request::read(&mut input).unwrap(), Some(no_library));
        assert_eq!(Request::read(&mut input).unwrap(), None, "a clean end of stream");

        let replies = [
            Reply::Compiled {
                nvrtc_version: (13, 0),
                succeeded: true,
                log: "ptxas info".into(),
                ptx: ".entry k".into(),
                cubin: vec![0x7f, b'E', b'L', b'F', 0],
            },
            Reply::Compiled {
                nvrtc_version: (12, 9),
                succeeded: false,
                log: "error".into(),
                ptx: "".into(),
                cubin: vec![],
            },
            Reply::Failed { message: "no libnvrtc".into() },
        ];
        for reply in replies {
            let mut bytes = Vec::new();
            reply.write(&mut bytes).unwrap();
            assert_eq!(Reply::read(&mut bytes.as_slice()).unwrap(), reply);
        }
    }

    #[test]
    fn truncated_or_foreign_streams_are_errors() {
        let mut bytes = Vec::new();
        request().write(&mut bytes).unwrap();
        for cut in [3, 8, 20, bytes.len() - 1] {
            assert!(Request::read(&mut &bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(Request::read(&mut &b"GET / HTTP/1.1\r\n"[..]).is_err());
        assert_eq!(Reply::read(&mut &b""[..]).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(Request::read(&mut huge.as_slice()).is_err(), "a length no stream of ours has");
    }
}
