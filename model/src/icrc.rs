//! RoCEv2 ICRC (IBA annex A17): CRC-32 over eight 0xFF bytes (the masked LRH stand-in), then the
//! IP header with its variant fields masked to ones (IPv4: TOS, TTL, header checksum; IPv6:
//! traffic class, flow label, hop limit), the UDP header with its checksum masked, the BTH with
//! byte 4 (FECN, BECN, reserved) masked, and everything up to the ICRC. It is sent
//! least-significant byte first, like the Ethernet FCS.
use crate::roce::{locate_udp, ParseError, ICRC_LEN};
use crc::{Crc, CRC_32_ISO_HDLC};

pub const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The masked bytes the ICRC covers, for an Ethernet frame without its ICRC.
pub fn icrc_covered(frame: &[u8]) -> Result<Vec<u8>, ParseError> {
    let (l4, roce) = locate_udp(frame)?;
    if !roce {
        return Err(ParseError::NotRoce);
    }
    if frame.len() < l4 + 8 + 12 {
        return Err(ParseError::Truncated(frame.len(), "BTH"));
    }
    let mut v = vec![0xffu8; 8];
    v.extend(&frame[14..]);
    let ip = 8; // offset of the IP header in v
    if frame[12] == 0x08 {
        v[ip + 1] = 0xff; // TOS
        v[ip + 8] = 0xff; // TTL
        v[ip + 10] = 0xff; // header checksum
        v[ip + 11] = 0xff;
    } else {
        v[ip] |= 0x0f; // traffic class (low nibble of byte 0) ...
        v[ip + 1] = 0xff; // ... and flow label
        v[ip + 2] = 0xff;
        v[ip + 3] = 0xff;
        v[ip + 7] = 0xff; // hop limit
    }
    let udp = l4 - 14 + 8;
    v[udp + 6] = 0xff;
    v[udp + 7] = 0xff;
    v[udp + 8 + 4] = 0xff; // BTH byte 4
    Ok(v)
}

/// ICRC of an Ethernet frame that does not yet carry one.
pub fn icrc_of(frame: &[u8]) -> Result<u32, ParseError> {
    Ok(CRC32.checksum(&icrc_covered(frame)?))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IcrcVerdict {
    pub expected: u32,
    pub found: u32,
}

impl IcrcVerdict {
    pub fn ok(&self) -> bool {
        self.expected == self.found
    }
}

/// Check the ICRC at the end of a whole RoCEv2 frame.
pub fn check_icrc(frame: &[u8]) -> Result<IcrcVerdict, ParseError> {
    if frame.len() < ICRC_LEN + 14 {
        return Err(ParseError::Truncated(frame.len(), "ICRC"));
    }
    let (body, tail) = frame.split_at(frame.len() - ICRC_LEN);
    Ok(IcrcVerdict { expected: icrc_of(body)?, found: u32::from_le_bytes(tail.try_into().unwrap()) })
}
