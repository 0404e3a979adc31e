"""the tournament online: a hosted copy's pages, and a hall's link to one

Revision ID: d9f4b2c6e8a3
Revises: c8e3a1f5d7b2
Create Date: 2026-11-27 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd9f4b2c6e8a3'
down_revision = 'c8e3a1f5d7b2'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'online_page',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('admin_token', sa.String(length=32), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=True),
        sa.Column('received_at', sa.DateTime(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('taken_down_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_online_page')),
        sa.UniqueConstraint('admin_token', name=op.f('uq_online_page_admin_token')),
        sa.UniqueConstraint('token', name=op.f('uq_online_page_token')),
    )
    op.create_table(
        'online_nonce',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('page_id', sa.Integer(), nullable=False),
        sa.Column('nonce', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['page_id'], ['online_page.id'], name=op.f('fk_online_nonce_page_id_online_page')
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_online_nonce')),
        sa.UniqueConstraint('page_id', 'nonce', name='uq_online_nonce'),
    )
    with op.batch_alter_table('online_nonce', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_online_nonce_page_id'), ['page_id'], unique=False)
    op.create_table(
        'tournament_online_link',
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(length=300), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('hall', sa.String(length=32), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=True),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('confirmed', sa.Integer(), nullable=False),
        sa.Column('confirmed_digest', sa.String(length=64), nullable=False),
        sa.Column('confirmed_at', sa.DateTime(), nullable=True),
        sa.Column('tried_at', sa.DateTime(), nullable=True),
        sa.Column('error', sa.String(length=300), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['tournament_id'], ['tournament.id'],
            name=op.f('fk_tournament_online_link_tournament_id_tournament'),
        ),
        sa.PrimaryKeyConstraint('tournament_id', name=op.f('pk_tournament_online_link')),
    )


def downgrade():
    op.drop_table('tournament_online_link')
    with op.batch_alter_table('online_nonce', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_online_nonce_page_id'))
    op.drop_table('online_nonce')
    op.drop_table('online_page')
