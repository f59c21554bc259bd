import CALSA

/// An ALSA capture device, as `camfx devices` lists it and `--audio` names it.
public struct AudioDevice: Sendable, Hashable {
  /// The name `--audio` takes: `hw:CARD,DEV` with the card's id, e.g. `hw:Loopback,1`.
  public var name: String
  /// The card's id (`snd_ctl_card_info_get_id`), e.g. `Loopback`, `PCH`.
  public var cardID: String
  /// The card's long name, e.g. `Loopback 1`.
  public var cardName: String
  public var cardIndex: Int
  public var deviceIndex: Int
  /// The PCM's name, e.g. `Loopback PCM`.
  public var deviceName: String
  /// How many subdevices the capture stream has (`hw:CARD,DEV,SUB`).
  public var subdevices: Int

  /// Every capture PCM of every sound card, found through the control interface (no
  /// stream is opened). Empty on machines without sound cards.
  public static func discover() -> [AudioDevice] {
    camfx_alsa_silence_errors()
    var devices: [AudioDevice] = []
    var card: Int32 = -1
    while snd_card_next(&card) == 0 && card >= 0 {
      var ctl: OpaquePointer?
      guard snd_ctl_open(&ctl, "hw:\(card)", 0) == 0, let ctl else { continue }
      defer { snd_ctl_close(ctl) }
      var cardInfo: OpaquePointer?
      guard snd_ctl_card_info_malloc(&cardInfo) == 0, let cardInfo else { continue }
      defer { snd_ctl_card_info_free(cardInfo) }
      guard snd_ctl_card_info(ctl, cardInfo) == 0 else { continue }
      let cardID = String(cString: snd_ctl_card_info_get_id(cardInfo))
      let cardName = String(cString: snd_ctl_card_info_get_name(cardInfo))
      var pcmInfo: OpaquePointer?
      guard snd_pcm_info_malloc(&pcmInfo) == 0, let pcmInfo else { continue }
      defer { snd_pcm_info_free(pcmInfo) }
      var device: Int32 = -1
      while snd_ctl_pcm_next_device(ctl, &device) == 0 && device >= 0 {
        snd_pcm_info_set_device(pcmInfo, UInt32(device))
        snd_pcm_info_set_subdevice(pcmInfo, 0)
        snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
        guard snd_ctl_pcm_info(ctl, pcmInfo) == 0 else { continue }  // playback only
        devices.append(
          AudioDevice(
            name: "hw:\(cardID),\(device)", cardID: cardID, cardName: cardName, cardIndex: Int(card),
            deviceIndex: Int(device), deviceName: String(cString: snd_pcm_info_get_name(pcmInfo)),
            subdevices: Int(snd_pcm_info_get_subdevices_count(pcmInfo))))
      }
    }
    return devices
  }
}
