/**
 * The AV1 bitstream as far as the sniffer needs it: the frame size in the
 * first sequence header OBU of an item's data or its `av1C`.
 *
 * @module
 */

/**
 * The frame size of the first AV1 sequence header OBU in `data` (a run of
 * OBUs with size fields, as in AVIF item data and `av1C`), or `null` when
 * none is found among the first 16 OBUs or it cannot be read.
 */
export function sequenceHeaderSize(data: Uint8Array): [number, number] | null {
  let at = 0;
  for (let n = 0; n < 16 && at < data.length; n++) {
    const header = data[at];
    const type = (header >> 3) & 15;
    const extension = (header >> 2) & 1, hasSize = (header >> 1) & 1;
    if (header & 0x80) return null; // forbidden bit
    at += 1 + extension;
    let size = data.length - at;
    if (hasSize) {
      let value = 0;
      for (let i = 0; i < 8; i++) {
        if (at >= data.length) return null;
        const byte = data[at++];
        value += (byte & 0x7f) * 2 ** (7 * i);
        if (!(byte & 0x80)) break;
      }
      size = value;
    }
    if (type === 1) return sequenceHeader(data.subarray(at, at + size));
    if (!hasSize) return null;
    at += size;
  }
  return null;
}

/** Reads `max_frame_width/height` from a sequence header OBU's payload. */
function sequenceHeader(payload: Uint8Array): [number, number] | null {
  let bit = 0;
  const f = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) {
      const byte = payload[bit >> 3];
      if (byte === undefined) throw new RangeError("short sequence header");
      v = v * 2 + ((byte >> (7 - (bit & 7))) & 1);
    }
    return v;
  };
  try {
    f(3); // seq_profile
    f(1); // still_picture
    const reduced = f(1);
    if (reduced) f(5); // seq_level_idx[0]
    else {
      let decoderModel = 0, bufferDelayLength = 0;
      if (f(1)) { // timing_info_present_flag
        f(32); // num_units_in_display_tick
        f(32); // time_scale
        if (f(1)) { // equal_picture_interval: num_ticks_per_picture (uvlc)
          let zeros = 0;
          while (!f(1)) if (++zeros >= 32) break;
          if (zeros < 32) f(zeros);
        }
        decoderModel = f(1);
        if (decoderModel) {
          bufferDelayLength = f(5) + 1;
          f(32); // num_units_in_decoding_tick
          f(5); // buffer_removal_time_length_minus_1
          f(5); // frame_presentation_time_length_minus_1
        }
      }
      const displayDelay = f(1);
      const points = f(5) + 1;
      for (let i = 0; i < points; i++) {
        f(12); // operating_point_idc
        if (f(5) > 7) f(1); // seq_level_idx, seq_tier
        if (decoderModel && f(1)) f(2 * bufferDelayLength + 1);
        if (displayDelay && f(1)) f(4);
      }
    }
    const widthBits = f(4) + 1, heightBits = f(4) + 1;
    return [f(widthBits) + 1, f(heightBits) + 1];
  } catch {
    return null;
  }
}
