//! RX path: parse (headers off, payload on), then dispatch.
pub mod parse;
pub mod responder;
pub mod requester;
