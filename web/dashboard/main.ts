import '@/apps/dashboard/main';
