import { Inject, Injectable } from '@nestjs/common';
import { dashboardSessionCookie, SESSION_LIFETIMES, SessionCookie } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/core';

/** The dashboard's session cookie as configured for this deployment (https or not). */
@Injectable()
export class DashboardCookie {
  readonly cookie: SessionCookie;

  constructor(@Inject(APP_CONFIG) readonly config: AppConfig) {
    this.cookie = dashboardSessionCookie(config.publicBaseUrl, SESSION_LIFETIMES.dashboard.absoluteSeconds);
  }
}
