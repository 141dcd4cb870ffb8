"""The reference host's settings service (see ``service.SettingsService``)."""

from .service import SettingsService

__all__ = ["SettingsService"]
