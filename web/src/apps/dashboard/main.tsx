import '@/styles/base.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { partnerApi } from '@/lib/api/clients';
import { partnerSessionMiddleware } from '@/lib/api/partner-session';
import { DashboardApp } from './app';

// The dashboard's requests carry the session's anti-forgery token and report an ended session.
partnerApi.use(partnerSessionMiddleware);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <DashboardApp />
  </StrictMode>,
);
