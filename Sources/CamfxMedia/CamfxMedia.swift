import CamfxCore
